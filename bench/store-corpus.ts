/**
 * Synthetic state.db contents for the store benchmarks: deterministic (seeded), realistic-ish
 * coding-agent conversations — user questions, assistant text and tool calls, tool output —
 * drawn from a Zipf-distributed vocabulary (a few very common words, a long tail of identifiers),
 * with recurring multi-word phrases and ~3% Japanese / Chinese sessions.
 *
 * The 1,000,000-message corpus is written once into `.bench/` (gitignored) under a name keyed by
 * the store's schema version and this generator's version, and reused by later runs.
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { SCHEMA_VERSION } from "../src/store/migrations.js";
import { openStateDb } from "../src/store/open.js";
import type { StoredMessage } from "../src/store/types.js";
import { writeHermesState, type HermesFixtureSession } from "../test/support/hermes-state-fixture.js";

/** Bump when the generated contents change, so cached corpora are rebuilt. */
const GENERATOR_VERSION = 1;

export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FUNCTION_WORDS =
  "the a to of and in is it that for you this be with on not are we can if as or but have do use an at by from will so what should there which need when then also".split(
    " ",
  );
const TECH_WORDS = (
  "error test file function config build server client request response database query index cache session token user api module " +
  "import export type interface class method value string number array object promise async await stream buffer path folder " +
  "install package version dependency script command terminal output input log debug trace stack exception timeout retry " +
  "network socket port host connection proxy header body json yaml schema migration table column row transaction commit " +
  "branch merge rebase deploy release docker container image volume kubernetes cluster pod service ingress secret permission " +
  "auth login password key certificate encrypt hash memory leak performance latency throughput benchmark profile thread worker " +
  "queue event handler callback listener render component state props hook router route middleware controller model view " +
  "parser lexer token syntax compile bundle minify typescript javascript python rust golang react vue svelte node npm yarn " +
  "pnpm vite webpack esbuild eslint prettier vitest jest mocha coverage snapshot fixture mock stub assert expect refactor " +
  "rename extract inline variable constant loop iterator generator closure scope context prompt model provider completion"
).split(" ");
const STEMS = "parse load save fetch read write build create update delete resolve validate format render compute sync merge split".split(" ");
const NOUNS = "Config Session Message Token Cache Index Queue Worker Handler Router Schema Record Buffer Stream Client Server Model Path Entry Result".split(" ");
export const PHRASES = [
  "connection refused",
  "permission denied",
  "out of memory",
  "segmentation fault",
  "module not found",
  "cannot read properties of undefined",
  "rate limit exceeded",
  "merge conflict",
  "race condition",
  "memory leak in the worker",
  "flaky test",
  "type error",
  "null pointer",
  "database is locked",
  "off by one",
  "dead lock",
];
const JAPANESE = "データベース 設定 ファイル エラー 東京 テスト 関数 変数 接続 サーバー 確認 修正 実行 環境 移行 問題 解決 方法 速度 検索 保存 読み込み 書き込み 削除".split(" ");
const CHINESE = "数据库 迁移 配置 文件 错误 测试 函数 变量 连接 服务器 检查 修复 执行 环境 问题 解决 方法 性能 搜索 保存 读取 写入 删除 缓存".split(" ");

/** The vocabulary, most frequent first: function words, tech words, then a long tail of identifiers. */
export function vocabulary(): string[] {
  const tail: string[] = [];
  const random = mulberry32(7);
  for (let i = 0; i < 30_000; i += 1) {
    const stem = STEMS[Math.floor(random() * STEMS.length)]!;
    const noun = NOUNS[Math.floor(random() * NOUNS.length)]!;
    tail.push(`${stem}${noun}${i.toString(36)}`);
  }
  return [...FUNCTION_WORDS, ...TECH_WORDS, ...tail];
}

class TextSource {
  private readonly words = vocabulary();
  private readonly cumulative: Float64Array;
  constructor(private readonly random: () => number) {
    this.cumulative = new Float64Array(this.words.length);
    let sum = 0;
    for (let rank = 0; rank < this.words.length; rank += 1) this.cumulative[rank] = sum += 1 / (rank + 1);
  }

  word(): string {
    const target = this.random() * this.cumulative[this.cumulative.length - 1]!;
    let low = 0;
    let high = this.cumulative.length - 1;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.cumulative[middle]! < target) low = middle + 1;
      else high = middle;
    }
    return this.words[low]!;
  }

  sentence(minWords: number, maxWords: number): string {
    const count = minWords + Math.floor(this.random() * (maxWords - minWords + 1));
    const parts: string[] = [];
    for (let i = 0; i < count; i += 1) parts.push(this.word());
    if (this.random() < 0.25) parts.splice(Math.floor(this.random() * parts.length), 0, PHRASES[Math.floor(this.random() * PHRASES.length)]!);
    return parts.join(" ");
  }

  cjk(words: readonly string[], count: number): string {
    let text = "";
    for (let i = 0; i < count; i += 1) text += words[Math.floor(this.random() * words.length)]! + (this.random() < 0.3 ? "の" : "");
    return `${text}。`;
  }
}

/** One session's messages: turns of user → (assistant tool call → tool result)* → assistant answer. */
export function* conversation(random: () => number, source: TextSource, length: number, script: "en" | "ja" | "zh"): Generator<StoredMessage> {
  let produced = 0;
  let call = 0;
  const prose = (min: number, max: number): string =>
    script === "en" ? source.sentence(min, max) : source.cjk(script === "ja" ? JAPANESE : CHINESE, Math.max(3, Math.floor(min / 3)) + Math.floor(random() * (max / 4)));
  while (produced < length) {
    yield { role: "user", content: prose(8, 60) };
    produced += 1;
    const tools = Math.floor(random() * 3);
    for (let t = 0; t < tools && produced + 2 < length; t += 1) {
      const id = `call_${(call += 1)}`;
      const name = ["read_file", "terminal", "search_files", "patch"][Math.floor(random() * 4)]!;
      yield {
        role: "assistant",
        content: random() < 0.5 ? null : prose(5, 25),
        tool_calls: [{ id, type: "function", function: { name, arguments: JSON.stringify({ path: `src/${source.word()}.ts`, query: source.word() }) } }],
      };
      yield { role: "tool", tool_call_id: id, name, content: source.sentence(20, 120) };
      produced += 2;
    }
    if (produced < length) {
      yield { role: "assistant", content: prose(10, 80), finish_reason: "stop" };
      produced += 1;
    }
  }
}

export function newTextSource(random: () => number): TextSource {
  return new TextSource(random);
}

export interface Corpus {
  path: string;
  sessions: number;
  messages: number;
  /** True when this run generated it (false: reused from `.bench/`). */
  generated: boolean;
  generationMs: number;
}

/**
 * The cached corpus of `sessions × perSession` messages, generating it first when missing.
 * Generation writes through the schema's triggers (both FTS indexes maintained as in real use)
 * with prepared statements, 500 sessions per transaction, into a temp file renamed at the end.
 */
export function ensureSearchCorpus(sessions: number, perSession: number, progress: (text: string) => void): Corpus {
  const dir = resolve(import.meta.dirname, "..", ".bench");
  const path = join(dir, `search-corpus-schema${SCHEMA_VERSION}-gen${GENERATOR_VERSION}-${sessions}x${perSession}.db`);
  const messages = sessions * perSession;
  if (existsSync(path)) return { path, sessions, messages, generated: false, generationMs: 0 };
  mkdirSync(dir, { recursive: true });
  const started = performance.now();
  buildOnce(path, (temp) => writeOwnCorpus(temp, sessions, perSession, { seed: 42, idPrefix: "bench-" }, (done) => progress(`generating the search corpus: ${done} / ${messages} messages`)));
  return { path, sessions, messages, generated: true, generationMs: performance.now() - started };
}

export interface AttachedCorpus {
  /** `state.db`, Python Hermes' (open a StateStore on it: hermes-acp's sessions are in `state-acp.db` beside it). */
  stateDb: string;
  /** Sessions and messages in each of the two databases. */
  sessionsEach: number;
  messagesEach: number;
  generated: boolean;
  generationMs: number;
}

/**
 * A HERMES_HOME-like folder in `.bench/` holding both databases a Hermes user who also runs
 * hermes-acp has: `state.db` in Python Hermes' v30 layout (`test/support/hermes-state-fixture.ts`,
 * word and trigram indexes kept by its triggers, sources cli / telegram / discord) and
 * `state-acp.db`, hermes-acp's own, each with `sessions × perSession` messages drawn from the same
 * generator with different seeds. Generated once, cached.
 */
export function ensureAttachedCorpus(sessions: number, perSession: number, progress: (text: string) => void): AttachedCorpus {
  const dir = resolve(import.meta.dirname, "..", ".bench", `attached-schema${SCHEMA_VERSION}-gen${GENERATOR_VERSION}-${sessions}x${perSession}x2`);
  const stateDb = join(dir, "state.db");
  const ownDb = join(dir, "state-acp.db");
  const messagesEach = sessions * perSession;
  const result = { stateDb, sessionsEach: sessions, messagesEach };
  if (existsSync(stateDb) && existsSync(ownDb)) return { ...result, generated: false, generationMs: 0 };
  mkdirSync(dir, { recursive: true });
  const started = performance.now();
  if (!existsSync(ownDb)) {
    buildOnce(ownDb, (temp) => writeOwnCorpus(temp, sessions, perSession, { seed: 43, idPrefix: "acp-" }, (done) => progress(`generating hermes-acp's half: ${done} / ${messagesEach} messages`)));
  }
  if (!existsSync(stateDb)) {
    progress(`generating Python Hermes' half (${messagesEach} messages, one transaction)`);
    buildOnce(stateDb, (temp) => writeHermesState(temp, hermesSessions(sessions, perSession, 44), "v30"));
  }
  return { ...result, generated: true, generationMs: performance.now() - started };
}

/**
 * Writes `path` through a temp file renamed at the end, so an interrupted run leaves nothing that
 * looks finished. The temp name carries this process's pid: two bench runs generating at once
 * each finish their own file (the last rename wins) instead of writing into each other's; temp
 * files of processes that are gone are removed first.
 */
function buildOnce(path: string, write: (temp: string) => void): void {
  const prefix = `${basename(path)}.building-`;
  for (const name of readdirSync(dirname(path))) {
    const pid = Number(/^(\d+)/.exec(name.slice(prefix.length))?.[1]);
    if (name.startsWith(prefix) && !processAlive(pid)) rmSync(join(dirname(path), name), { force: true });
  }
  const temp = `${path}.building-${process.pid}`;
  write(temp);
  renameSync(temp, path);
  for (const file of [`${temp}-wal`, `${temp}-shm`]) rmSync(file, { force: true });
}

function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Python Hermes sessions (ids `YYYYMMDD_HHMMSS_hex`, as Hermes names them) over the last year. */
function* hermesSessions(sessions: number, perSession: number, seed: number): Generator<HermesFixtureSession> {
  const random = mulberry32(seed);
  const text = newTextSource(random);
  const sources = ["cli", "cli", "telegram", "discord"];
  const start = Date.now() / 1000 - 365 * 86_400;
  for (let s = 0; s < sessions; s += 1) {
    const startedAt = start + (s / sessions) * 365 * 86_400;
    const stamp = new Date(startedAt * 1000).toISOString().replace(/[-:]/g, "").replace("T", "_").slice(0, 15);
    const script = random() < 0.03 ? (random() < 0.5 ? "ja" : "zh") : "en";
    let time = startedAt;
    const messages: HermesFixtureSession["messages"] = [];
    let title: string | undefined;
    for (const message of conversation(random, text, perSession, script)) {
      time += 5 + random() * 60;
      const content = message.content === null || typeof message.content === "string" ? message.content : JSON.stringify(message.content);
      if (message.role === "user" && title === undefined) title = String(content).slice(0, 60);
      messages.push({
        role: message.role,
        content,
        timestamp: time,
        ...(message.role === "assistant" && message.tool_calls ? { toolCalls: message.tool_calls.map((call) => ({ id: call.id, name: call.function.name, arguments: call.function.arguments })) } : {}),
        ...(message.role === "tool" ? { toolCallId: message.tool_call_id, ...(message.name ? { toolName: message.name } : {}) } : {}),
      });
    }
    yield {
      id: `${stamp}_${s.toString(16).padStart(6, "0")}`,
      source: sources[s % sources.length]!,
      ...(title !== undefined ? { title } : {}),
      startedAt,
      cwd: `/home/dev/project-${s % 40}`,
      messages,
    };
  }
}

/** hermes-acp's schema with `sessions × perSession` messages, 500 sessions per transaction; `done` reports progress. */
function writeOwnCorpus(path: string, sessions: number, perSession: number, options: { seed: number; idPrefix: string }, done: (messages: number) => void): void {
  const db = openStateDb(path);
  const random = mulberry32(options.seed);
  const text = newTextSource(random);
  const insertSession = db.prepare(
    `INSERT INTO sessions (id, source, model, model_config, cwd, title, started_at, last_active, message_count, tool_call_count)
     VALUES (?, 'acp', 'bench-model', ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertMessage = db.prepare(
    `INSERT INTO messages (session_id, role, content, tool_call_id, tool_calls, tool_name, timestamp, finish_reason)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const start = Date.now() / 1000 - 365 * 86_400;
  const writeBatch = db.transaction((from: number, to: number) => {
    for (let s = from; s < to; s += 1) {
      const id = `${options.idPrefix}${s.toString().padStart(6, "0")}`;
      const script = random() < 0.03 ? (random() < 0.5 ? "ja" : "zh") : "en";
      const cwd = `/home/dev/project-${s % 40}`;
      let time = start + (s / sessions) * 365 * 86_400;
      const first = time;
      let toolCalls = 0;
      let title: string | null = null;
      const rows: unknown[][] = [];
      for (const message of conversation(random, text, perSession, script)) {
        time += 5 + random() * 60;
        if (message.role === "user" && title === null) title = String(message.content).slice(0, 60);
        if (message.role === "assistant" && message.tool_calls) toolCalls += message.tool_calls.length;
        rows.push([
          id,
          message.role,
          message.content,
          message.role === "tool" ? message.tool_call_id : null,
          message.role === "assistant" && message.tool_calls ? JSON.stringify(message.tool_calls) : null,
          message.role === "tool" ? (message.name ?? null) : null,
          time,
          message.role === "assistant" && !message.tool_calls ? "stop" : null,
        ]);
      }
      insertSession.run(id, JSON.stringify({ cwd, provider: "custom" }), cwd, title, first, time, rows.length, toolCalls);
      for (const row of rows) insertMessage.run(...row);
    }
  });
  for (let from = 0; from < sessions; from += 500) {
    writeBatch(from, Math.min(sessions, from + 500));
    done(Math.min(sessions, from + 500) * perSession);
  }
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
}
