/**
 * The dependency floors of the "cold first answer" and idle-RSS rows: agents that only load the
 * libraries a first answer needs and do no agent work (dependency-floor-serve.cjs serves them), in
 * two forms, both built into `.bench/dependency-floor/` once per bench run from the installed packages:
 * - `dependency-floor-agent.mjs`: the libraries bundled into one file and code-cached as hermes' own
 *   bundle is (esbuild, minified; a V8 code cache written after one evaluation), evaluated on `session/new`;
 * - `dependency-floor-snapshot.cjs`: the same libraries in a V8 start-up snapshot
 *   (`node --snapshot-blob`, Node 20's user-land snapshot), already in the heap when the process starts.
 */
import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { build } from "esbuild";
import { procStatusKb } from "./prompt.js";

const FLOOR_AGENT = resolve(import.meta.dirname, "dependency-floor-agent.mjs");
const SNAPSHOT_ENTRY = resolve(import.meta.dirname, "dependency-floor-snapshot.cjs");

/** The packages the floor agents load, by the name they check them under. */
const DEPENDENCIES = { acp: "@agentclientprotocol/sdk", zod: "zod", yaml: "yaml", openai: "openai" } as const;

/** How to start each floor agent: the argv to spawn (the first element is the executable). */
export interface DependencyFloors {
  /** The libraries evaluated from a code cache on `session/new`. */
  codeCache: readonly string[];
  /** The libraries deserialized from a V8 start-up snapshot before `initialize`. */
  snapshot: readonly string[];
}

const bundleOptions = { bundle: true, platform: "node", format: "cjs", target: "node20", minify: true, legalComments: "none", logLevel: "warning" } as const;

let built: Promise<DependencyFloors> | undefined;

/** Builds both floors (the bundle, its code cache, the snapshot blob) once per bench run; answers how to start them. */
export function buildDependencyFloors(): Promise<DependencyFloors> {
  built ??= buildFloors();
  return built;
}

async function buildFloors(): Promise<DependencyFloors> {
  const root = resolve(import.meta.dirname, "..");
  const dir = join(root, ".bench/dependency-floor");
  mkdirSync(dir, { recursive: true });
  const entry = join(dir, "entry.cjs");
  writeFileSync(entry, `module.exports = {\n${Object.entries(DEPENDENCIES).map(([name, pkg]) => `  ${name}: require(${JSON.stringify(pkg)}),`).join("\n")}\n};\n`);
  await build({ ...bundleOptions, entryPoints: [entry], outfile: join(dir, "deps.cjs"), absWorkingDir: root });
  execFileSync(process.execPath, [FLOOR_AGENT, dir, "--write-cache"], { stdio: ["ignore", "ignore", "inherit"] });
  const snapshotEntry = join(dir, "snapshot-entry.cjs");
  const blob = join(dir, "floor.blob");
  await build({ ...bundleOptions, entryPoints: [SNAPSHOT_ENTRY], outfile: snapshotEntry, absWorkingDir: root, alias: { "hermes-floor-dependencies": entry }, external: ["better-sqlite3"] });
  execFileSync(process.execPath, ["--snapshot-blob", blob, "--build-snapshot", snapshotEntry], { cwd: dir, stdio: ["ignore", "ignore", "inherit"] });
  return { codeCache: [process.execPath, FLOOR_AGENT, dir], snapshot: [process.execPath, "--snapshot-blob", blob, dir] };
}

export interface DependencyFloorRss {
  /** VmRSS in kB the moment the floor agent's `session/new` answered (its libraries evaluated, SQLite open). */
  loadedKb: number;
  /** VmRSS in kB `settleMs` after that answer. */
  idleKb: number;
  /** VmRSS in kB `reducedMs` after that answer (V8's memory reducer has had its chance). */
  reducedIdleKb: number;
}

/**
 * The memory floor under the idle-RSS row: a floor agent's (`command`, from buildDependencyFloors)
 * VmRSS after its `session/new` answered, its libraries loaded and SQLite open (what hermes' warm-up
 * after `initialize` loads), read at the same delays the idle-RSS row reads hermes at. `env` must
 * carry HERMES_HOME (the floor's database goes there).
 */
export async function measureDependencyFloorRss(command: readonly string[], env: NodeJS.ProcessEnv, cwd: string, settleMs: number, reducedMs: number): Promise<DependencyFloorRss> {
  const [file, ...args] = command as [string, ...string[]];
  const child = spawn(file, args, { env, stdio: ["pipe", "pipe", "ignore"] });
  const exited = once(child, "exit");
  const pending = new Map<number, (frame: { result?: unknown }) => void>();
  let text = "";
  child.stdout.on("data", (chunk: Buffer) => {
    text += chunk.toString("utf8");
    for (let end = text.indexOf("\n"); end >= 0; end = text.indexOf("\n")) {
      const frame = JSON.parse(text.slice(0, end)) as { id?: number; result?: unknown };
      text = text.slice(end + 1);
      if (frame.id !== undefined) pending.get(frame.id)?.(frame);
    }
  });
  const died = new Promise<never>((_, reject) => child.once("exit", (code) => reject(new Error(`the dependency floor agent exited (${code})`))));
  const request = (id: number, method: string, params: object): Promise<{ result?: unknown }> => {
    const answered = new Promise<{ result?: unknown }>((resolveFrame) => pending.set(id, resolveFrame));
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    return Promise.race([answered, died]);
  };
  const vmRss = (): number => {
    const pid = child.pid;
    if (pid === undefined) throw new Error("the dependency floor agent has no pid");
    return procStatusKb(readFileSync(`/proc/${pid}/status`, "utf8"), pid, "VmRSS");
  };
  try {
    await request(0, "initialize", { protocolVersion: 1 });
    const opened = await request(1, "session/new", { cwd, mcpServers: [] });
    if (opened.result === undefined) throw new Error("the dependency floor agent refused session/new");
    const answeredAt = performance.now();
    const loadedKb = vmRss();
    await sleep(settleMs);
    const idleKb = vmRss();
    await sleep(Math.max(0, reducedMs - (performance.now() - answeredAt)));
    return { loadedKb, idleKb, reducedIdleKb: vmRss() };
  } finally {
    died.catch(() => undefined);
    child.stdin.end();
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(timer);
  }
}
