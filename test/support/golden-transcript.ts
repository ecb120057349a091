import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { createPatch, diffArrays } from "diff";
import type { RecordedFrame } from "./in-memory-acp.js";

/**
 * Golden ACP transcripts: recorded frames as stable JSON lines, one frame a line, in the order
 * they were written, and their comparison with a committed file.
 *
 * A line names who wrote the frame and what it is — `{"from":"client","request":"session/new",
 * "id":1,"params":…}`, `{"from":"agent","response":"session/new","id":1,"result":…}` (or
 * `"error"`), `{"from":"agent","notification":"session/update","params":…}` — with the keys of
 * params / result / error sorted. What changes from run to run is replaced (see `normalizeFrames`).
 */

export interface NormalizeOptions {
  /**
   * Literal strings to replace wherever they occur inside a string, e.g. a temp folder by
   * `<workspace>`. Each is also replaced in its realpath form; longer strings are replaced first.
   */
  literals: Record<string, string>;
  /** The agent's version string: replaced by `<version>` under a `version` key. */
  version?: string;
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
/** Generated ids besides UUIDs: tool call ids the agent made up (`tc-` + 12 hex), the fake model's own. */
const SHORT_IDS = /\btc-[0-9a-f]{12}\b|\bcall_fake_\d+_[a-z0-9]+\b/g;
const ISO_TIME = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})\b/g;

/** The placeholder family of an id first seen under `key`. */
function idKind(key: string | undefined): string {
  if (key === "sessionId") return "session";
  if (key === "messageId") return "message";
  if (key === "toolCallId") return "tool-call";
  if (key === "terminalId") return "terminal";
  return "id";
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value as Record<string, unknown>)
        .sort()
        .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

/**
 * The frames as transcript lines, run-specific values replaced:
 * - every UUID and generated tool call id becomes `<kind-N>`, numbered by first appearance in
 *   the transcript (kind from the key it first appears under: session, message, tool-call,
 *   terminal, else id), so the same id keeps its name everywhere (inside texts too) and a frame
 *   naming the wrong id still differs;
 * - the literals (temp folders, the model server's URL) become their names;
 * - ISO timestamps become `<time>`; the version under a `version` key becomes `<version>`;
 * - `used` of a `usage_update` becomes `<estimate>`: it estimates the next request, whose system
 *   prompt names the OS release and the temp cwd, so it differs between machines (`size` stays).
 * Ids the test scripted (tool call ids from the scripted model, JSON-RPC request ids, which both
 * SDK ends count from 0) stay as they are.
 */
export function normalizeFrames(frames: readonly RecordedFrame[], options: NormalizeOptions): string[] {
  const literals = new Map<string, string>();
  for (const [text, name] of Object.entries(options.literals)) {
    literals.set(text, name);
    if (existsSync(text)) literals.set(realpathSync(text), name);
  }
  const ordered = [...literals.entries()].sort(([a], [b]) => b.length - a.length);
  const ids = new Map<string, string>();
  const counts = new Map<string, number>();
  const idName = (id: string, key: string | undefined): string => {
    let name = ids.get(id);
    if (!name) {
      const kind = idKind(key);
      const n = (counts.get(kind) ?? 0) + 1;
      counts.set(kind, n);
      name = `<${kind}-${n}>`;
      ids.set(id, name);
    }
    return name;
  };
  const visit = (node: unknown, key?: string): unknown => {
    if (typeof node === "string") {
      if (key === "version" && options.version !== undefined && node === options.version) return "<version>";
      let text = node;
      for (const [literal, name] of ordered) text = text.split(literal).join(name);
      return text
        .replace(UUID, (id) => idName(id.toLowerCase(), key))
        .replace(SHORT_IDS, (id) => idName(id, "toolCallId"))
        .replace(ISO_TIME, "<time>");
    }
    if (Array.isArray(node)) return node.map((item) => visit(item, key));
    if (node && typeof node === "object") {
      const estimate = (node as Record<string, unknown>).sessionUpdate === "usage_update";
      return Object.fromEntries(
        Object.entries(node as Record<string, unknown>).map(([k, v]) => [k, estimate && k === "used" && typeof v === "number" ? "<estimate>" : visit(v, k)]),
      );
    }
    return node;
  };

  const methods = new Map<string, string>();
  return frames.map(({ from, message }) => {
    const line: Record<string, unknown> = { from };
    const method = typeof message.method === "string" ? message.method : undefined;
    if (method !== undefined && "id" in message) {
      methods.set(`${from}:${String(message.id)}`, method);
      Object.assign(line, { request: method, id: message.id });
    } else if (method !== undefined) {
      line.notification = method;
    } else {
      const asked = methods.get(`${from === "client" ? "agent" : "client"}:${String(message.id)}`) ?? "?";
      Object.assign(line, { response: asked, id: message.id });
    }
    for (const part of ["params", "result", "error"] as const) {
      if (part in message) line[part] = sortKeys(visit(message[part]));
    }
    return JSON.stringify(line);
  });
}

/** Whether this run rewrites golden files instead of comparing with them (`UPDATE_GOLDEN=1`). */
export const UPDATE_GOLDEN = process.env.UPDATE_GOLDEN === "1";

/**
 * The golden file's lines, after rewriting it with `lines` when `UPDATE_GOLDEN=1` (or when it is
 * missing and `UPDATE_GOLDEN` is set). A missing file otherwise reads as no lines, so the
 * comparison fails with the whole transcript as the diff.
 */
export function goldenLines(file: string, lines: readonly string[]): string[] {
  if (UPDATE_GOLDEN) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, lines.map((line) => `${line}\n`).join(""));
  }
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8").split("\n").filter((line) => line.length > 0);
}

/** Frame lines as indented JSON, so a diff shows the field that changed on a line of its own. */
function pretty(lines: readonly string[]): string {
  return lines.map((line) => `${JSON.stringify(JSON.parse(line) as unknown, null, 2)}\n`).join("");
}

/** `from request|response|notification method (update kind)` of a transcript line. */
function summary(line: string): string {
  const frame = JSON.parse(line) as Record<string, unknown>;
  const what = ["request", "response", "notification"].find((kind) => kind in frame) ?? "frame";
  const params = frame.params as { update?: { sessionUpdate?: string } } | undefined;
  const kind = params?.update?.sessionUpdate ? ` (${params.update.sessionUpdate})` : "";
  return `${String(frame.from)} ${what} ${String(frame[what] ?? "")}${kind}`;
}

/** One line per frame removed (-, numbered as in the golden file) or added (+, numbered as in this run). */
function changedFrames(golden: readonly string[], actual: readonly string[]): string[] {
  const lines: string[] = [];
  let [g, a] = [0, 0];
  for (const part of diffArrays([...golden], [...actual])) {
    for (const line of part.value) {
      if (part.removed) lines.push(`  - #${++g} ${summary(line)}`);
      else if (part.added) lines.push(`  + #${++a} ${summary(line)}`);
      else [g, a] = [g + 1, a + 1];
    }
  }
  return lines;
}

/**
 * Undefined when `actual` equals `golden`; otherwise a readable report: a unified diff of the
 * two transcripts with every frame pretty-printed, and how to accept the change.
 */
export function transcriptDiff(name: string, file: string, actual: readonly string[], golden: readonly string[]): string | undefined {
  if (actual.length === golden.length && actual.every((line, index) => line === golden[index])) return undefined;
  const patch = createPatch(file, pretty(golden), pretty(actual), "golden", "this run", { context: 4 });
  const missing = golden.length === 0 ? `\n${file} is missing or empty.` : "";
  return [
    `The ACP transcript of "${name}" differs from ${file} (${golden.length} frames there, ${actual.length} now).${missing}`,
    ...changedFrames(golden, actual),
    patch,
    `If the change is intended: UPDATE_GOLDEN=1 npx vitest run test/acp-scenarios.test.ts, then review and commit the .jsonl.`,
  ].join("\n");
}
