/**
 * DESIGN §7 store rows, measured in this process against real state.db files:
 *
 * - store load of a 10,000-message session: a fresh `StateStore` per sample (so the file open,
 *   pragmas and schema check are included, the native driver already loaded) then `loadMessages`.
 *   This is the store's part of `session/load`; the ACP replay is not included.
 * - `session_search` over 1,000,000 messages in 20,000 sessions (`store-corpus.ts`, cached in
 *   `.bench/`): ~20 varied discovery queries, each timed as the median of several runs after one
 *   warm-up run; the figure is the median over the queries.
 * - the same queries with a Python Hermes database attached (issue 17): 500,000 messages in
 *   Python Hermes' `state.db` and 500,000 in hermes-acp's `state-acp.db` beside it, asked through
 *   the session_search port a session uses (both searched, hits merged, session rows read).
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createSessionSearchPort } from "../src/runtime/session-search-port.js";
import type { SearchOptions } from "../src/store/search.js";
import { StateStore } from "../src/store/state-store.js";
import type { SessionSearchRole } from "../src/tools/ports.js";
import { conversation, ensureAttachedCorpus, ensureSearchCorpus, mulberry32, newTextSource, vocabulary } from "./store-corpus.js";
import { median } from "./stats.js";

export interface StoreLoadResult {
  messages: number;
  /** Fresh store per sample: open + loadMessages. */
  samples: number[];
  /** The first load in this process, including loading the native driver. */
  firstMs: number;
  /** `loadMessages` alone on an already open store. */
  warmSamples: number[];
  fileMb: number;
}

export function measureStoreLoad(count: number, messages = 10_000): StoreLoadResult {
  const root = mkdtempSync(join(tmpdir(), "hermes-bench-load-"));
  const path = join(root, "state.db");
  try {
    const writer = new StateStore(path);
    const meta = writer.createSession({ id: "long", cwd: root, model: "bench", provider: "custom", systemPrompt: "You are Hermes." });
    const random = mulberry32(3);
    writer.appendMessages(meta, [...conversation(random, newTextSource(random), messages, "en")]);
    writer.close();
    const fileMb = statSync(path).size / 1024 / 1024;

    const timeLoad = (store: StateStore): number => {
      const started = performance.now();
      const loaded = store.loadMessages("long");
      const elapsed = performance.now() - started;
      if (loaded.length !== messages) throw new Error(`loaded ${loaded.length} messages, expected ${messages}`);
      return elapsed;
    };
    const first = new StateStore(path);
    const firstMs = timeLoad(first);
    first.close();
    const samples: number[] = [];
    for (let i = 0; i < count; i += 1) {
      const store = new StateStore(path);
      samples.push(timeLoad(store));
      store.close();
    }
    const warm = new StateStore(path);
    const warmSamples = Array.from({ length: count }, () => timeLoad(warm));
    warm.close();
    return { messages, samples, firstMs, warmSamples, fileMb };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

export interface QueryTiming {
  label: string;
  ms: number;
  hits: number;
  strategy: string;
}

export interface SearchBenchResult {
  messages: number;
  sessions: number;
  generated: boolean;
  generationMs: number;
  fileMb: number;
  openMs: number;
  timings: QueryTiming[];
}

/** The benchmark queries: common and rare words, phrases, operators, syntax, CJK, filters. */
function benchQueries(): Array<{ label: string; options: Omit<SearchOptions, "limit"> & { limit?: number } }> {
  const words = vocabulary();
  const rare = (rank: number): string => words[rank]!;
  const q = (query: string, extra: Partial<SearchOptions> = {}): { label: string; options: SearchOptions } => ({
    label: `${JSON.stringify(query)}${extra.sort ? ` sort=${extra.sort}` : ""}${extra.roleFilter ? ` roles=${extra.roleFilter.join(",")}` : ""}`,
    options: { query, ...extra },
  });
  return [
    q("docker"),
    q("error"),
    q("migration transaction"),
    q("typescript interface"),
    q('"connection refused"'),
    q('"database is locked" retry'),
    q("memory leak worker"),
    q("deploy*"),
    q("redis OR kubernetes"),
    q("cache NOT redis"),
    q(rare(1200)),
    q(rare(9000)),
    q(`${rare(400)} ${rare(700)}`),
    q("response:json"),
    q("flaky test", { sort: "recent" }),
    q("segmentation fault", { roleFilter: ["tool"] }),
    q("データベース"),
    q("数据库迁移"),
    q("東京"),
    q("xylophonequartzunmatched"),
  ];
}

export function measureSessionSearch(repeats: number, progress: (text: string) => void): SearchBenchResult {
  const corpus = ensureSearchCorpus(20_000, 50, progress);
  const store = new StateStore(corpus.path);
  try {
    const opened = performance.now();
    store.getSession("bench-000000");
    const openMs = performance.now() - opened;
    const timings: QueryTiming[] = [];
    for (const { label, options } of benchQueries()) {
      const full: SearchOptions = { limit: 3, excludeSessionId: "bench-019999", ...options };
      const first = store.searchMessages(full); // warm-up (first run reads the index pages from disk)
      const samples: number[] = [];
      for (let i = 0; i < repeats; i += 1) {
        const started = performance.now();
        store.searchMessages(full);
        samples.push(performance.now() - started);
      }
      timings.push({ label, ms: median(samples), hits: first.hits.length, strategy: first.strategy });
    }
    return {
      messages: corpus.messages,
      sessions: corpus.sessions,
      generated: corpus.generated,
      generationMs: corpus.generationMs,
      fileMb: statSync(corpus.path).size / 1024 / 1024,
      openMs,
      timings,
    };
  } finally {
    store.close();
  }
}

export interface AttachedSearchResult {
  /** Messages in each database (Python Hermes' and hermes-acp's). */
  messagesEach: number;
  sessionsEach: number;
  generated: boolean;
  generationMs: number;
  fileMb: { hermes: number; own: number };
  /** What the reader found in state.db (must be `available` with both indexes). */
  hermesStatus: string;
  timings: Array<QueryTiming & { fromHermes: number }>;
}

/** The bench queries through `createSessionSearchPort` over both databases (see the header). */
export async function measureAttachedSearch(repeats: number, progress: (text: string) => void): Promise<AttachedSearchResult> {
  const corpus = ensureAttachedCorpus(10_000, 50, progress);
  const store = new StateStore(corpus.stateDb);
  try {
    store.getSession("warm-up"); // opens state-acp.db (state.db is Python Hermes')
    const status = store.hermesHistory()?.status();
    const hermesStatus = status ? (status.kind === "available" ? `available (v${status.version}, words ${status.words}, trigram ${status.trigram})` : JSON.stringify(status)) : "none";
    if (status?.kind !== "available") throw new Error(`Python Hermes' state.db is not read: ${hermesStatus}`);
    const port = createSessionSearchPort(store, "acp-009999");
    const timings: AttachedSearchResult["timings"] = [];
    for (const { label, options } of benchQueries()) {
      const query = {
        query: options.query,
        limit: options.limit ?? 3,
        ...(options.roleFilter ? { roleFilter: [...options.roleFilter] as SessionSearchRole[] } : {}),
        ...(options.sort ? { sort: options.sort } : {}),
      };
      const first = await port.search(query); // warm-up (first run reads the index pages from disk)
      const samples: number[] = [];
      for (let i = 0; i < repeats; i += 1) {
        const started = performance.now();
        await port.search(query);
        samples.push(performance.now() - started);
      }
      const fromHermes = first.filter((hit) => hit.session.source !== "acp").length;
      timings.push({ label, ms: median(samples), hits: first.length, strategy: "port", fromHermes });
    }
    return {
      messagesEach: corpus.messagesEach,
      sessionsEach: corpus.sessionsEach,
      generated: corpus.generated,
      generationMs: corpus.generationMs,
      fileMb: { hermes: statSync(corpus.stateDb).size / 1024 / 1024, own: statSync(join(dirname(corpus.stateDb), "state-acp.db")).size / 1024 / 1024 },
      hermesStatus,
      timings,
    };
  } finally {
    store.close();
  }
}
