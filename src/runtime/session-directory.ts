import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import type { ToolOutcome } from "../agent/loop.js";
import { repairToolPairs } from "../agent/history-repair.js";
import type { ChatMessage } from "../llm/types.js";
import { repairDatabase, salvageDatabase, type CheckResult, type RepairReport, type SalvageReport } from "../store/integrity.js";
import { mergeHits, mergeSummaries } from "../store/history-merge.js";
import type { SearchOptions, SearchResult } from "../store/search.js";
import { loadSqlite } from "../store/sqlite.js";
import type { StateStore } from "../store/state-store.js";
import type { ListSessionsOptions, MessageRow, SessionPage, SessionRecord, SessionSummary, StoredMessage } from "../store/types.js";
import { afterLastReset } from "./history-reset.js";
import { HIDDEN_SOURCES } from "../store/lineage.js";

export type { CheckResult, ListSessionsOptions, MessageRow, RepairReport, SalvageReport, SessionPage, SessionRecord, SessionSummary, StoredMessage };

export interface TranscriptEntry {
  message: ChatMessage;
  toolOutcome?: ToolOutcome;
}

/**
 * The stored sessions, as the adapter and the CLI see them: list, read, delete, search, repair.
 * The only view of state.db outside `runtime/`. Errors as StateStore's (HermesError `internal`
 * naming the file and the reason).
 */
export class SessionDirectory {
  constructor(
    /** Undefined when there is no state.db (a CLI command never creates one): then nothing is stored. */
    private readonly store: StateStore | undefined,
    /** The state.db path (for repair, which works on the file itself). */
    readonly path: string,
  ) {}

  /** Sessions newest first, one page (see StateStore.listSessions). */
  list(options: ListSessionsOptions = {}): SessionPage {
    return this.store ? this.store.listSessions(options) : { sessions: [] };
  }

  get(id: string): SessionRecord | undefined {
    return this.store?.getSession(id);
  }

  /** Every stored message of a session with its id and time, reset markers included (for export). */
  messageRows(id: string): MessageRow[] {
    return this.store?.loadMessageRows(id) ?? [];
  }

  /** Deletes the session and its messages. False when it is not stored. */
  delete(id: string): boolean {
    return this.store?.deleteSession(id) ?? false;
  }

  /**
   * Full-text search, one hit per conversation (see store/search.ts), over hermes-acp's sessions
   * and, when state.db is Python Hermes', its sessions too (read-only, `origin: "hermes"`; merged
   * as store/history-merge.ts says). `strategy` is that of hermes-acp's own database.
   */
  search(options: SearchOptions): SearchResult {
    if (!this.store) return { strategy: "none", hits: [] };
    const own = this.store.searchMessages(options);
    const foreign = (this.store.hermesHistory()?.search(options) ?? []).filter((hit) => this.onlyHermes(hit.sessionId));
    const limit = Math.min(10, Math.max(1, Math.floor(options.limit ?? 3)));
    return { strategy: own.strategy, hits: mergeHits(own.hits, foreign, options.sort ?? "relevance", limit) };
  }

  /**
   * `hermes sessions list`: hermes-acp's sessions and Python Hermes' visible ones (read-only,
   * `origin: "hermes"`; hidden sources, delegated `subagent` runs among them, left out of both), most recently active first, at most `limit`;
   * `cwd` keeps sessions of that real folder. `more` when others were left out. (`list`, which the
   * editor pages through and can load, stays hermes-acp's own.)
   */
  listWithHermes(options: { limit: number; cwd?: string }): { sessions: SessionSummary[]; more: boolean } {
    if (!this.store) return { sessions: [], more: false };
    const own: SessionSummary[] = [];
    let cursor: string | undefined;
    do {
      const page = this.store.listSessions({ limit: Math.min(1000, options.limit - own.length), ...(options.cwd ? { cwd: options.cwd } : {}), ...(cursor ? { cursor } : {}) });
      own.push(...page.sessions.filter((session) => !HIDDEN_SOURCES.includes(session.source)));
      cursor = page.nextCursor;
    } while (cursor && own.length < options.limit);
    const listed = this.store.hermesHistory()?.listSessions(options) ?? { sessions: [], more: false };
    const foreign = { ...listed, sessions: listed.sessions.filter((session) => this.onlyHermes(session.id)) };
    const sessions = mergeSummaries(own, foreign.sessions, options.limit);
    return { sessions, more: cursor !== undefined || foreign.more || own.length + foreign.sessions.length > sessions.length };
  }

  /**
   * A session and every stored message of it, for export: hermes-acp's own first, then Python
   * Hermes' (its visible messages; the record has `origin: "hermes"`). Undefined when neither has it.
   */
  exportable(id: string): { session: SessionRecord; rows: MessageRow[] } | undefined {
    const own = this.store?.getSession(id);
    if (own) return { session: own, rows: this.messageRows(id) };
    const history = this.store?.hermesHistory();
    const foreign = history?.getSession(id);
    return history && foreign ? { session: foreign, rows: history.messageRows(id) } : undefined;
  }

  /** Whether a Hermes session id is not also one of hermes-acp's (then the id names hermes-acp's session, and Hermes' is left out). */
  private onlyHermes(id: string): boolean {
    return this.store?.getSession(id) === undefined;
  }

  /** True when `id` is a session of Python Hermes' state.db (which hermes-acp never changes). */
  isHermesSession(id: string): boolean {
    return this.store?.getSession(id) === undefined && this.store?.hermesHistory()?.getSession(id) !== undefined;
  }

  /**
   * The stored conversation of a session with each tool result's outcome, for replaying it to an
   * editor and restoring it: what follows the last `/reset` marker, with tool calls a killed
   * process left without results repaired. Empty when nothing is stored.
   */
  transcript(id: string): TranscriptEntry[] {
    const entries = this.messageRows(id).map((row) => {
      const outcome = row.toolDetails as Partial<ToolOutcome> | undefined;
      const entry: TranscriptEntry = { message: row.message as ChatMessage };
      if (outcome && typeof outcome === "object" && typeof outcome.isError === "boolean") {
        entry.toolOutcome = { isError: outcome.isError, ...(outcome.details !== undefined ? { details: outcome.details } : {}) };
      }
      return entry;
    });
    return repairToolPairs(afterLastReset(entries, (entry) => entry.message));
  }

  /**
   * The database hermes-acp writes: state.db, or state-acp.db beside it when state.db belongs to
   * Python Hermes (which is never repaired or moved from here).
   */
  ownDatabase(): string {
    const own = join(dirname(this.path), "state-acp.db");
    if (!existsSync(this.path)) return this.path;
    try {
      const db = new (loadSqlite())(this.path, { readonly: true, fileMustExist: true });
      try {
        const foreign = Number(db.pragma("user_version", { simple: true })) === 0 && db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'sessions'").get();
        return foreign ? own : this.path;
      } finally {
        db.close();
      }
    } catch {
      return this.path;
    }
  }

  /** `hermes sessions repair`: see store/integrity.ts repairDatabase. Call with no other handle open. */
  repair(): RepairReport {
    this.store?.close();
    return repairDatabase(this.ownDatabase());
  }

  /** `hermes sessions repair --salvage`: see store/integrity.ts salvageDatabase. */
  salvage(): SalvageReport {
    this.store?.close();
    return salvageDatabase(this.ownDatabase());
  }

  close(): void {
    this.store?.close();
  }
}
