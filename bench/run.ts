/**
 * `npm run bench`: measures the DESIGN §7 performance budgets against the built binary
 * (dist/hermes.js) and the fake model server on loopback, and prints each figure, its budget and
 * ok/OVER. Budgets are checked here, never by timed tests. Issue 17 added the cold first answer,
 * the request size with the full toolset, the first prompt's extra overhead and session_search
 * with a Python Hermes database attached (their budgets are marked in BUDGETS).
 *
 *   npm run bench                   15 start-up runs per command (30 sessions, 20 prompts, 5 streams)
 *   npm run bench -- --runs 5       a quick run; the other sample counts scale with --runs
 *   BENCH_RUNS=5 npm run bench      the same
 *   npm run bench -- --json         machine-readable output (one JSON object on stdout)
 *
 * Exits 1 when a measurement failed (its row says ERROR); an OVER budget does not change the exit code.
 */
import { availableParallelism } from "node:os";
import { parseArgs } from "node:util";
import { createTempHome } from "../test/support/temp-home.js";
import { measureColdAnswer, type ColdAnswer } from "./cold-answer.js";
import { buildDependencyFloors, measureDependencyFloorRss, type DependencyFloorRss } from "./dependency-floor.js";
import { measureHeavyPrompt } from "./prompt-heavy.js";
import { IDLE_SETTLE_MS, measurePeakRss, measurePromptOverhead, REDUCED_IDLE_MS, TYPING_PAUSE_MS } from "./prompt.js";
import { failed, formatTable, formatValue, measured, type Budget, type Report, type Row } from "./report.js";
import { estimatedTokens, measureRequestSize } from "./request-size.js";
import { measureSessionLoad } from "./session-load.js";
import { measureSandboxCost } from "./sandbox.js";
import { measureSessionNew } from "./session.js";
import { median, summarize } from "./stats.js";
import { measureStartup } from "./startup.js";
import { measureAttachedSearch, measureSessionSearch, measureStoreLoad } from "./store.js";
import { measureStreaming } from "./streaming.js";

const STREAM_CHUNKS = 20_000;

const BUDGETS = {
  startupRatio: { op: "<=", limit: 1.3 },
  sessionNew: { op: "<=", limit: 20 },
  promptOverhead: { op: "<=", limit: 15 },
  peakRss: { op: "<=", limit: 80 },
  idleRss: { op: "<=", limit: 60 },
  sessionLoad: { op: "<=", limit: 500 },
  sessionSearch: { op: "<=", limit: 50 },
  streaming: { op: ">=", limit: 20_000 },
  sandboxCost: { op: "<=", limit: 10 },
  // Issue 17 (DESIGN §7 lists the same figures; these rows are new with it):
  /** Cold first answer ÷ (bare-Node initialize floor + the scripted model's own time). */
  coldAnswerRatio: { op: "<=", limit: 1.3 },
  /** System prompt + tool schemas with the full hermes-acp toolset, in characters. */
  requestSize: { op: "<=", limit: 32_000 },
  /** The first prompt's adapter overhead minus the later prompts' median, in ms. */
  firstPromptExtra: { op: "<=", limit: 15 },
  /** session_search with a Python Hermes state.db attached (1,000,000 messages across both), as the existing search row. */
  sessionSearchAttached: { op: "<=", limit: 50 },
} satisfies Record<string, Budget>;

interface Options {
  runs: number;
  json: boolean;
  /** Row ids (or their prefixes) whose sections run; all when empty. */
  only: string[];
}

let selected: string[] = [];

function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: { runs: { type: "string" }, json: { type: "boolean" }, only: { type: "string" }, help: { type: "boolean" } },
    strict: true,
  });
  if (values.help) {
    process.stdout.write("usage: npm run bench [-- --runs N] [-- --json] [-- --only ID[,ID...]]   (or BENCH_RUNS=N; --only runs the sections of those row ids or id prefixes)\n");
    process.exit(0);
  }
  const raw = values.runs ?? process.env.BENCH_RUNS ?? "15";
  const runs = Number(raw);
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs / BENCH_RUNS must be a positive integer, got ${JSON.stringify(raw)}`);
  const only = (values.only ?? "").split(",").map((id) => id.trim()).filter(Boolean);
  return { runs, json: values.json === true, only };
}

function ms(value: number): string {
  return formatValue(value, "ms");
}

/** Runs one section; a failure becomes ERROR rows for the ids it would have produced. */
async function section(rows: Row[], fallback: Array<[string, string, Row["unit"], Budget?]>, body: () => Promise<Row[]>): Promise<void> {
  if (selected.length > 0 && !fallback.some(([id]) => selected.some((wanted) => id.startsWith(wanted)))) return;
  try {
    rows.push(...(await body()));
  } catch (error) {
    for (const [id, what, unit, budget] of fallback) rows.push(failed(id, what, unit, error, budget));
  }
}

async function startupRows(runs: number): Promise<Row[]> {
  const { bare, hermes, firstStart, modelRequests } = await measureStartup(runs);
  const a = summarize(bare);
  const b = summarize(hermes);
  const c = summarize(firstStart);
  return [
    measured("startup-bare", "start-up: bare Node answering initialize", a.median, "ms", `median of ${a.count}; min ${ms(a.min)}, max ${ms(a.max)}`),
    measured("startup-hermes", "start-up: node dist/hermes.js acp", b.median, "ms", `median of ${b.count}; min ${ms(b.min)}, max ${ms(b.max)}; answered from the initialize cache`),
    measured(
      "startup-first",
      "start-up: a first start (no initialize cache yet)",
      c.median,
      "ms",
      `median of ${c.count}; min ${ms(c.min)}, max ${ms(c.max)}; ratio to bare ${(c.median / a.median).toFixed(2)}×`,
    ),
    measured(
      "startup-ratio",
      "start-up ratio hermes / bare (medians)",
      b.median / a.median,
      "x",
      `ratio of mins ${(b.min / a.min).toFixed(2)}×; model-server requests during start-up: ${modelRequests}`,
      BUDGETS.startupRatio,
    ),
  ];
}

/** An info row for a dependency floor's cold first answers, with its ratio to `base` (bare initialize + model). */
function floorRow(id: string, what: string, samples: readonly ColdAnswer[], base: number, agent: string, sessionNew: string): Row {
  const pick = (part: (sample: ColdAnswer) => number): string => ms(median(samples.map(part)));
  const total = median(samples.map((sample) => sample.totalMs));
  return measured(
    id,
    what,
    total,
    "ms",
    `median of ${samples.length} interleaved runs of ${agent}; ratio to bare initialize + model ${(total / base).toFixed(2)}×; parts (medians): ` +
      `initialize ${pick((s) => s.initializeMs)}, session/new (${sessionNew}) ${pick((s) => s.sessionNewMs)}, prompt → first chunk ${pick((s) => s.promptMs)}`,
  );
}

async function coldAnswerRows(runs: number): Promise<Row[]> {
  const { bare, cold, floor: dependencyFloor, snapshotFloor } = await measureColdAnswer(runs);
  const total = summarize(cold.map((sample) => sample.totalMs));
  const floor = median(bare);
  const model = median(cold.map((sample) => sample.modelMs));
  const part = (pick: (sample: (typeof cold)[number]) => number): string => ms(median(cold.map(pick)));
  const detail =
    `median of ${total.count}; min ${ms(total.min)}, max ${ms(total.max)}; every toolset available; ` +
    `parts (medians): initialize ${part((s) => s.initializeMs)}, session/new ${part((s) => s.sessionNewMs)}, prompt → first chunk ${part((s) => s.promptMs)}`;
  return [
    measured("cold-answer", "cold first answer: spawn → initialize → session/new → first chunk", total.median, "ms", detail),
    measured(
      "cold-answer-ratio",
      "cold first answer / (bare initialize + model time)",
      total.median / (floor + model),
      "x",
      `bare initialize median ${ms(floor)} (${bare.length} interleaved runs) + scripted model median ${ms(model)} = ${ms(floor + model)}`,
      BUDGETS.coldAnswerRatio,
    ),
    floorRow("cold-answer-floor", "cold first answer, dependency floor (libraries only, no agent work)", dependencyFloor, floor + model,
      "bench/dependency-floor-agent.mjs", "the ACP SDK, zod, yaml and openai evaluated from one code-cached bundle, a SQLite open"),
    floorRow("cold-answer-snapshot-floor", "cold first answer, snapshot floor (libraries in a start-up snapshot)", snapshotFloor, floor + model,
      "bench/dependency-floor-snapshot.cjs started with node --snapshot-blob (the same libraries deserialized with node's own start-up)", "a SQLite open"),
  ];
}

async function requestSizeRows(): Promise<Row[]> {
  const size = await measureRequestSize();
  const total = size.systemChars + size.toolsChars;
  const perToolset = size.perToolset
    .map((entry) => `${entry.toolset.padEnd(15)} ${String(entry.tools).padStart(2)} tools ${entry.chars.toLocaleString("en-US").padStart(7)} chars  ≈${estimatedTokens(entry.chars).toLocaleString("en-US")} tokens`)
    .join("\n");
  const detail =
    `≈${estimatedTokens(total).toLocaleString("en-US")} tokens (chars / 4); system prompt ${size.systemChars.toLocaleString("en-US")} chars ` +
    `(≈${estimatedTokens(size.systemChars).toLocaleString("en-US")} tokens, no project context, memory or skills), ` +
    `${size.toolCount} tool schemas ${size.toolsChars.toLocaleString("en-US")} chars as chat completions sends them\n${perToolset}`;
  return [measured("request-size", "request size, full toolset (system prompt + tool schemas)", total, "chars", detail, BUDGETS.requestSize)];
}

async function sessionNewRows(runs: number): Promise<Row[]> {
  const { firstMs, samples } = await measureSessionNew(runs * 2);
  const s = summarize(samples);
  const detail = `median of ${s.count} after a warm-up; min ${ms(s.min)}, max ${ms(s.max)}; first session ${ms(firstMs)}`;
  return [measured("session-new", "session/new", s.median, "ms", detail, BUDGETS.sessionNew)];
}

/** Fresh agents whose first prompt is timed for the first-prompt row. */
const FIRST_PROMPT_AGENTS = 5;

async function promptRows(runs: number): Promise<Row[]> {
  const { first, samples } = await measurePromptOverhead(Math.ceil((runs * 4) / 3), TYPING_PAUSE_MS);
  // The first prompt happens once per agent: its extra is the median over fresh agents (one sample is noise).
  const others = [];
  for (let i = 1; i < FIRST_PROMPT_AGENTS; i += 1) others.push(await measurePromptOverhead(5, TYPING_PAUSE_MS));
  const extras = [first.overheadMs - median(samples.map((sample) => sample.overheadMs))];
  for (const other of others) extras.push(other.first.overheadMs - median(other.samples.map((sample) => sample.overheadMs)));
  const immediate = await measurePromptOverhead(Math.ceil(runs / 3));
  const overhead = summarize(samples.map((sample) => sample.overheadMs));
  const detail =
    `median of ${overhead.count}; min ${ms(overhead.min)}, max ${ms(overhead.max)}; ` +
    `round trip median ${ms(median(samples.map((sample) => sample.roundTripMs)))}, ` +
    `model median ${ms(median(samples.map((sample) => sample.modelMs)))}; ` +
    `first prompt of the session: overhead ${ms(first.overheadMs)} (round trip ${ms(first.roundTripMs)})`;
  const later = summarize(immediate.samples.map((sample) => sample.overheadMs));
  return [
    measured("prompt-overhead", "prompt adapter overhead (round trip − model)", overhead.median, "ms", detail, BUDGETS.promptOverhead),
    measured(
      "prompt-first-extra",
      "first prompt's overhead − later prompts' (median)",
      median(extras),
      "ms",
      `median of ${extras.length} fresh agents (${extras.map(ms).join(", ")}); first prompt sent ${TYPING_PAUSE_MS} ms after session/new answered ` +
        `(a person typing; the warm-up runs meanwhile); first agent: overhead ${ms(first.overheadMs)}, later median ${ms(overhead.median)}`,
      BUDGETS.firstPromptExtra,
    ),
    measured(
      "prompt-first-extra-at-once",
      "first prompt's extra, sent at once after session/new",
      immediate.first.overheadMs - later.median,
      "ms",
      `a second agent, first prompt sent the moment session/new answered (waits for the rest of the warm-up): overhead ${ms(immediate.first.overheadMs)}, later median ${ms(later.median)}`,
    ),
  ];
}

async function heavyPromptRows(runs: number): Promise<Row[]> {
  const { samples, historySent } = await measureHeavyPrompt(Math.max(5, Math.ceil(runs / 2)));
  const overhead = summarize(samples.map((sample) => sample.overheadMs));
  const detail =
    `median of ${overhead.count}; min ${ms(overhead.min)}, max ${ms(overhead.max)}; ` +
    `history of 100 stored messages plus earlier bench turns (${historySent} messages on the last turn's first call); 5 read_file calls per turn`;
  return [measured("prompt-overhead-heavy", "prompt overhead, 100-message history + 5 tool calls", overhead.median, "ms", detail, BUDGETS.promptOverhead)];
}

async function rssRows(): Promise<Row[]> {
  const { peakKb, currentKb, initializedKb, idleKb, reducedIdleKb } = await measurePeakRss();
  const floors = await buildDependencyFloors();
  const floorRss = async (command: readonly string[]): Promise<DependencyFloorRss> => {
    const floorHome = createTempHome();
    return measureDependencyFloorRss(command, floorHome.env(), floorHome.workspace, IDLE_SETTLE_MS, REDUCED_IDLE_MS).finally(() => floorHome.cleanup());
  };
  const floor = await floorRss(floors.codeCache);
  const snapshotFloor = await floorRss(floors.snapshot);
  const mb = (kb: number): string => `${(kb / 1024).toFixed(1)} MB`;
  return [
    measured("peak-rss", "peak RSS after 1 session + 1 prompt", peakKb / 1024, "MB", `every toolset enabled; VmHWM ${peakKb} kB, VmRSS ${currentKb} kB (MB here = 1024 kB)`, BUDGETS.peakRss),
    measured(
      "idle-rss",
      "RSS idle after initialize (warm-up done)",
      idleKb / 1024,
      "MB",
      `VmRSS ${IDLE_SETTLE_MS} ms after initialize answered, every toolset enabled, no session yet; ${mb(initializedKb)} the moment it answered, ` +
        `${mb(reducedIdleKb)} ${REDUCED_IDLE_MS / 1000} s after it (V8's memory reducer has run)`,
      BUDGETS.idleRss,
    ),
    measured(
      "idle-rss-floor",
      "RSS idle, dependency floor (libraries loaded, no agent work)",
      floor.idleKb / 1024,
      "MB",
      `VmRSS of bench/dependency-floor-agent.mjs ${IDLE_SETTLE_MS} ms after its session/new evaluated the ACP SDK, zod, yaml and openai and opened SQLite ` +
        `(what hermes' warm-up loads); ${mb(floor.loadedKb)} the moment it answered, ${mb(floor.reducedIdleKb)} ${REDUCED_IDLE_MS / 1000} s after it; ` +
        `hermes idle − floor ${mb(idleKb - floor.idleKb)}`,
    ),
    measured(
      "idle-rss-snapshot-floor",
      "RSS idle, snapshot floor (libraries in a start-up snapshot)",
      snapshotFloor.idleKb / 1024,
      "MB",
      `VmRSS of bench/dependency-floor-snapshot.cjs (node --snapshot-blob) ${IDLE_SETTLE_MS} ms after its session/new opened SQLite, the same libraries ` +
        `deserialized at start; ${mb(snapshotFloor.loadedKb)} the moment it answered, ${mb(snapshotFloor.reducedIdleKb)} ${REDUCED_IDLE_MS / 1000} s after it`,
    ),
  ];
}

async function sessionLoadRows(runs: number): Promise<Row[]> {
  const result = await measureSessionLoad(Math.max(3, Math.ceil(runs / 3)));
  const s = summarize(result.samples);
  const detail = `median of ${s.count} fresh agents; min ${ms(s.min)}, max ${ms(s.max)}; ${result.updates.toLocaleString("en-US")} replay updates before the response`;
  return [measured("session-load", "session/load of 10,000 messages (replay included)", s.median, "ms", detail, BUDGETS.sessionLoad)];
}

async function storeLoadRows(runs: number): Promise<Row[]> {
  const result = measureStoreLoad(runs);
  const s = summarize(result.samples);
  const detail =
    `store part of session/load only (the whole load's budget is ${BUDGETS.sessionLoad.limit} ms); ` +
    `median of ${s.count} fresh opens + loadMessages; min ${ms(s.min)}, max ${ms(s.max)}; ` +
    `on an open store ${ms(median(result.warmSamples))}; first in process (loads the driver) ${ms(result.firstMs)}; ` +
    `${result.messages.toLocaleString("en-US")} messages, ${result.fileMb.toFixed(1)} MB file`;
  return [measured("store-load", "store part of that load (open + read 10,000 messages)", s.median, "ms", detail)];
}

async function sessionSearchRows(runs: number, progress: (what: string) => void): Promise<Row[]> {
  const result = measureSessionSearch(Math.max(3, Math.ceil(runs / 3)), progress);
  const times = result.timings.map((timing) => timing.ms);
  const s = summarize(times);
  const corpus =
    `${result.messages.toLocaleString("en-US")} messages in ${result.sessions.toLocaleString("en-US")} sessions, ` +
    `${result.fileMb.toFixed(0)} MB` +
    (result.generated ? `, generated in ${(result.generationMs / 1000).toFixed(0)} s` : ", cached in .bench/");
  const perQuery = result.timings.map((t) => `${ms(t.ms).padStart(9)}  ${t.strategy.padEnd(9)} ${t.hits} hits  ${t.label}`).join("\n");
  const detail = `median over ${s.count} queries; min ${ms(s.min)}, max ${ms(s.max)}; ${corpus}; open ${ms(result.openMs)}\n${perQuery}`;
  return [measured("session-search", "session_search over 1,000,000 messages", s.median, "ms", detail, BUDGETS.sessionSearch)];
}

async function attachedSearchRows(runs: number, progress: (what: string) => void): Promise<Row[]> {
  const result = await measureAttachedSearch(Math.max(3, Math.ceil(runs / 3)), progress);
  const s = summarize(result.timings.map((timing) => timing.ms));
  const each = `${result.messagesEach.toLocaleString("en-US")} messages in ${result.sessionsEach.toLocaleString("en-US")} sessions`;
  const corpus =
    `Python Hermes' state.db ${each} (${result.fileMb.hermes.toFixed(0)} MB, ${result.hermesStatus}) + hermes-acp's state-acp.db ${each} ` +
    `(${result.fileMb.own.toFixed(0)} MB)` +
    (result.generated ? `, generated in ${(result.generationMs / 1000).toFixed(0)} s` : ", cached in .bench/");
  const perQuery = result.timings.map((t) => `${ms(t.ms).padStart(9)}  ${t.hits} hits (${t.fromHermes} Hermes')  ${t.label}`).join("\n");
  const detail = `median over ${s.count} queries through the session_search port; min ${ms(s.min)}, max ${ms(s.max)}; ${corpus}\n${perQuery}`;
  return [measured("session-search-attached", "session_search, Python Hermes db attached (1M messages across both)", s.median, "ms", detail, BUDGETS.sessionSearchAttached)];
}

async function streamingRows(runs: number): Promise<Row[]> {
  const results = await measureStreaming(STREAM_CHUNKS, Math.ceil(runs / 3));
  const rate = median(results.map((result) => result.perSecond));
  const detail = results
    .map(
      (r) =>
        `${r.notifications} notifications for ${r.modelChunks} model chunks over ${ms(r.spanMs)} ` +
        `(${formatValue(r.perSecond, "chunks/s")}); prompt ${ms(r.promptMs)}, model ${ms(r.modelMs)}`,
    )
    .join("\n");
  return [measured("streaming", `streamed chunks relayed (median of ${results.length})`, rate, "chunks/s", detail, BUDGETS.streaming)];
}

async function sandboxRows(runs: number): Promise<Row[]> {
  const result = await measureSandboxCost(Math.max(10, runs * 2));
  const plain = median(result.plain);
  const sandboxed = median(result.sandboxed);
  const detail =
    `terminal call of \`true\`, ${result.plain.length} alternating pairs (${result.kind}); ` +
    `median unconfined ${ms(plain)}, sandboxed ${ms(sandboxed)}; sandboxed min ${ms(Math.min(...result.sandboxed))}, max ${ms(Math.max(...result.sandboxed))}`;
  return [measured("sandbox-cost", "sandbox cost per command (sandboxed − unconfined, medians)", sandboxed - plain, "ms", detail, BUDGETS.sandboxCost)];
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  selected = options.only;
  const rows: Row[] = [];
  const progress = (what: string): void => {
    if (!options.json) process.stderr.write(`bench: ${what}…\n`);
  };
  progress("start-up");
  await section(rows, [["startup-ratio", "start-up ratio hermes / bare (medians)", "x", BUDGETS.startupRatio]], () => startupRows(options.runs));
  progress("cold first answer");
  await section(rows, [["cold-answer-ratio", "cold first answer / (bare initialize + model time)", "x", BUDGETS.coldAnswerRatio]], () => coldAnswerRows(options.runs));
  progress("request size");
  await section(rows, [["request-size", "request size, full toolset (system prompt + tool schemas)", "chars", BUDGETS.requestSize]], requestSizeRows);
  progress("session/new");
  await section(rows, [["session-new", "session/new", "ms", BUDGETS.sessionNew]], () => sessionNewRows(options.runs));
  progress("prompt overhead");
  await section(rows, [["prompt-overhead", "prompt adapter overhead (round trip − model)", "ms", BUDGETS.promptOverhead]], () =>
    promptRows(options.runs),
  );
  progress("prompt overhead with history and tools");
  await section(rows, [["prompt-overhead-heavy", "prompt overhead, 100-message history + 5 tool calls", "ms", BUDGETS.promptOverhead]], () =>
    heavyPromptRows(options.runs),
  );
  progress("peak RSS");
  await section(rows, [["peak-rss", "peak RSS after 1 session + 1 prompt", "MB", BUDGETS.peakRss], ["idle-rss", "RSS idle after initialize (warm-up done)", "MB", BUDGETS.idleRss]], rssRows);
  progress("session/load");
  await section(rows, [["session-load", "session/load of 10,000 messages (replay included)", "ms", BUDGETS.sessionLoad]], () =>
    sessionLoadRows(options.runs),
  );
  progress("store load");
  await section(rows, [["store-load", "store part of that load (open + read 10,000 messages)", "ms"]], () => storeLoadRows(options.runs));
  progress("session_search (the first run generates a 1,000,000-message corpus in .bench/, a few minutes)");
  await section(rows, [["session-search", "session_search over 1,000,000 messages", "ms", BUDGETS.sessionSearch]], () =>
    sessionSearchRows(options.runs, progress),
  );
  progress("session_search with Python Hermes' database attached (the first run generates 2 × 500,000 messages in .bench/, a few minutes)");
  await section(rows, [["session-search-attached", "session_search, Python Hermes db attached (1M messages across both)", "ms", BUDGETS.sessionSearchAttached]], () =>
    attachedSearchRows(options.runs, progress),
  );
  progress("streaming");
  await section(rows, [["streaming", "streamed chunks relayed", "chunks/s", BUDGETS.streaming]], () => streamingRows(options.runs));

  progress("sandbox cost");
  await section(rows, [["sandbox-cost", "sandbox cost per command (sandboxed − unconfined, medians)", "ms", BUDGETS.sandboxCost]], () => sandboxRows(options.runs));
  const report: Report = { node: process.version, cpus: availableParallelism(), runs: options.runs, rows };
  process.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : formatTable(report));
  return rows.some((row) => row.status === "ERROR") ? 1 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`bench: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
