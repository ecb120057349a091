import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { errorMessage } from "../shared/errors.js";
import { openSessionDirectory } from "../runtime/open-directory.js";
import type { CheckResult, RepairReport, SessionDirectory, SessionSummary } from "../runtime/session-directory.js";
import { bootstrap } from "./bootstrap.js";
import { formatLocalTime, sessionJson, sessionMarkdown, type ExportedSession } from "./session-export.js";

export const SESSIONS_USAGE = `Usage:
  hermes sessions list [--cwd DIR] [--limit N] [--json]   stored sessions, most recent first (50 by default),
                                                          Python Hermes' own (read-only) among them
  hermes sessions search "query" [--limit N] [--json]     full-text search, one result per conversation (10 at most)
  hermes sessions export ID [--json]                      a session as a Markdown transcript (or JSON)
  hermes sessions delete ID                               delete a session and its messages
  hermes sessions repair [--salvage]                      check state.db and rebuild its search index;
                                                          --salvage: copy what is readable into a new
                                                          state.db, keeping the damaged file beside it
`;

const DEFAULT_LIST_LIMIT = 50;
const MAX_SEARCH_LIMIT = 10;

/** Thrown for bad command lines: printed with the usage, exit 2. */
class UsageError extends Error {}

/**
 * `hermes sessions …` over `$HERMES_HOME/state.db` (list, search and export also read Python
 * Hermes' sessions there, never changing them). Results go to stdout, errors to stderr.
 * Exit 0 on success, 1 when a session does not exist or the database fails, 2 for a bad command
 * line. Never creates state.db: without one there are simply no sessions.
 */
export async function runSessionsCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === "--help" || sub === "-h" || sub === "help") {
    (sub === undefined ? process.stderr : process.stdout).write(SESSIONS_USAGE);
    return sub === undefined ? 2 : 0;
  }
  const paths = bootstrap({ logFile: false });
  const store = openSessionDirectory(paths.stateDb);
  try {
    switch (sub) {
      case "list":
        return list(store, rest);
      case "search":
        return search(store, rest);
      case "export":
        return exportSession(store, rest);
      case "delete":
        return deleteSession(store, rest);
      case "repair":
        return repair(store, rest);
      default:
        throw new UsageError(`unknown sessions command '${sub}'`);
    }
  } catch (error) {
    if (error instanceof UsageError || isParseArgsError(error)) {
      process.stderr.write(`hermes sessions: ${errorMessage(error)}\n\n${SESSIONS_USAGE}`);
      return 2;
    }
    process.stderr.write(`hermes sessions: ${errorMessage(error)}\n`);
    return 1;
  } finally {
    store.close();
  }
}

function list(store: SessionDirectory, argv: string[]): number {
  const { values } = parseArgs({ args: argv, options: { cwd: { type: "string" }, limit: { type: "string" }, json: { type: "boolean" } }, strict: true });
  const limit = positiveInt(values.limit, "--limit") ?? DEFAULT_LIST_LIMIT;
  const cwd = values.cwd === undefined ? undefined : resolve(values.cwd);
  const { sessions, more } = store.listWithHermes({ limit, ...(cwd ? { cwd } : {}) });
  if (values.json) {
    write(JSON.stringify({ sessions: sessions.map(summaryJson), more }, null, 2));
    return 0;
  }
  if (sessions.length === 0) {
    write(cwd ? `No sessions in ${cwd}.` : "No sessions.");
    return 0;
  }
  const width = Math.max(...sessions.map((session) => session.id.length));
  for (const session of sessions) {
    const count = `${session.messageCount} msg${session.messageCount === 1 ? "" : "s"}`.padStart(9);
    const origin = session.origin === "hermes" ? `  (${sourceLabel(session.source, session.origin)})` : "";
    write(`${session.id.padEnd(width)}  ${formatLocalTime(session.lastActiveAt)}  ${count}  ${session.title?.trim() || "(untitled)"}${session.cwd ? `  [${session.cwd}]` : ""}${origin}`);
  }
  if (more) write(`… more sessions; raise --limit (now ${limit}) to see them.`);
  return 0;
}

function search(store: SessionDirectory, argv: string[]): number {
  const { values, positionals } = parseArgs({ args: argv, options: { limit: { type: "string" }, json: { type: "boolean" } }, allowPositionals: true, strict: true });
  const query = positionals.join(" ").trim();
  if (!query) throw new UsageError("search needs a query");
  const limit = Math.min(MAX_SEARCH_LIMIT, positiveInt(values.limit, "--limit") ?? MAX_SEARCH_LIMIT);
  const hits = store.search({ query, limit }).hits;
  if (values.json) {
    const shaped = hits.map((hit) => ({ ...hit, when: iso(hit.when), startedAt: iso(hit.startedAt), timestamp: iso(hit.timestamp) }));
    write(JSON.stringify({ query, hits: shaped }, null, 2));
    return 0;
  }
  if (hits.length === 0) {
    write(`No sessions match "${query}".`);
    return 0;
  }
  const bold = process.stdout.isTTY ? (text: string): string => `\x1b[1m${text}\x1b[22m` : (text: string): string => `**${text}**`;
  hits.forEach((hit, index) => {
    if (index > 0) write("");
    write(`${index + 1}. ${hit.title?.trim() || hit.preview || "(untitled)"}  (${hit.sessionId})`);
    write(`   ${[formatLocalTime(hit.when), sourceLabel(hit.source, hit.origin), hit.cwd].filter(Boolean).join(" · ")}`);
    write(`   ${hit.snippet.replace(/\s+/g, " ").replace(/>>>(.*?)<<</g, (_, match: string) => bold(match))}`);
  });
  return 0;
}

function exportSession(store: SessionDirectory, argv: string[]): number {
  const { values, positionals } = parseArgs({ args: argv, options: { json: { type: "boolean" } }, allowPositionals: true, strict: true });
  const id = singleId(positionals, "export");
  const found = store.exportable(id);
  if (!found) return noSuchSession(id);
  const { session, rows } = found;
  const subagents = subagentsOf(store, id);
  write(values.json ? JSON.stringify(sessionJson(session, rows, subagents), null, 2) : sessionMarkdown(session, rows, subagents).trimEnd());
  return 0;
}

/** The `subagent` sessions `id` delegated to (oldest first), with theirs, a few levels deep. */
function subagentsOf(store: SessionDirectory, id: string, depth = 0): ExportedSession[] {
  if (depth >= 4) return [];
  const children: SessionSummary[] = [];
  let cursor: string | undefined;
  do {
    const page = store.list({ source: "subagent", limit: 1000, ...(cursor ? { cursor } : {}) });
    children.push(...page.sessions.filter((summary) => summary.parentSessionId === id));
    cursor = page.nextCursor;
  } while (cursor);
  children.sort((a, b) => a.startedAt - b.startedAt);
  return children.flatMap((child) => {
    const found = store.exportable(child.id);
    return found ? [{ ...found, subagents: subagentsOf(store, child.id, depth + 1) }] : [];
  });
}

function deleteSession(store: SessionDirectory, argv: string[]): number {
  const { positionals } = parseArgs({ args: argv, options: {}, allowPositionals: true, strict: true });
  const id = singleId(positionals, "delete");
  if (store.isHermesSession(id)) {
    process.stderr.write(`hermes sessions: session '${id}' is Python Hermes' (its state.db is only read here); delete it with Hermes itself\n`);
    return 1;
  }
  const session = store.get(id);
  if (!session || !store.delete(id)) return noSuchSession(id);
  const title = session.title?.trim() ? ` "${session.title.trim()}"` : "";
  const count = `${session.messageCount} message${session.messageCount === 1 ? "" : "s"}`;
  write(`Deleted session ${id}${title} (${count}${session.cwd ? `, ${session.cwd}` : ""}).`);
  return 0;
}

/** `repair`: exit 0 when the database is sound afterwards, 1 when it is not (or cannot be opened). */
function repair(store: SessionDirectory, argv: string[]): number {
  const { values } = parseArgs({ args: argv, options: { salvage: { type: "boolean" } }, strict: true });
  const path = store.ownDatabase();
  if (!existsSync(path)) {
    write(`No ${path}: nothing to repair.`);
    return 0;
  }
  if (values.salvage) {
    const report = store.salvage();
    write(`Salvaged ${report.sessions} session(s) and ${report.messages} message(s) into a new ${path}${report.unreadable ? `; ${report.unreadable} row(s) could not be read` : ""}.`);
    write(`The damaged file is kept as ${report.damagedCopy}.`);
    return 0;
  }
  let report: RepairReport;
  try {
    report = store.repair();
  } catch (error) {
    process.stderr.write(`hermes sessions: ${errorMessage(error)}\n`);
    process.stderr.write(`It is beyond repair in place and was left untouched. \`hermes sessions repair --salvage\` moves it aside and starts a new ${path} with whatever can still be read.\n`);
    return 1;
  }
  const problems = (result: CheckResult): string => (result.ok ? "ok" : result.problems.join("; "));
  write(`Checked ${path}: ${problems(report.before)}.`);
  write(report.rebuilt.length ? `The search index was damaged (${report.rebuilt.join(", ")}); rebuilt it from the stored messages.` : "Rebuilt the search index from the stored messages.");
  if (report.after.ok) {
    write("The database is sound.");
    return 0;
  }
  process.stderr.write(`hermes sessions: the tables themselves are damaged (${problems(report.after)}); the file was left as it is.\n`);
  process.stderr.write(`\`hermes sessions repair --salvage\` copies every readable session and message into a new ${path} and keeps the damaged file beside it.\n`);
  return 1;
}

/** A source as listed: Python Hermes' sessions say where they are kept. */
function sourceLabel(source: string, origin: SessionSummary["origin"]): string {
  return origin === "hermes" ? `Hermes ${source}` : source;
}

function noSuchSession(id: string): number {
  process.stderr.write(`hermes sessions: no session with id '${id}' (see \`hermes sessions list\`)\n`);
  return 1;
}

function singleId(positionals: string[], command: string): string {
  if (positionals.length !== 1 || !positionals[0]!.trim()) throw new UsageError(`${command} needs exactly one session id`);
  return positionals[0]!.trim();
}

function positiveInt(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) throw new UsageError(`${flag} must be a whole number of at least 1, not '${value}'`);
  return number;
}

function summaryJson(session: SessionSummary): Record<string, unknown> {
  return { ...session, startedAt: iso(session.startedAt), lastActiveAt: iso(session.lastActiveAt) };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function isParseArgsError(error: unknown): boolean {
  return typeof (error as { code?: unknown })?.code === "string" && (error as { code: string }).code.startsWith("ERR_PARSE_ARGS");
}

function write(line: string): void {
  process.stdout.write(`${line}\n`);
}
