/**
 * The `session_search` port over state.db — hermes-acp's own sessions and, when
 * `$HERMES_HOME/state.db` belongs to Python Hermes, its sessions too, read-only and labelled with
 * their source (store/hermes-history.ts): the tools layer's plain types filled from the store.
 */
import type { HermesHistory } from "../store/hermes-history.js";
import { mergeHits, mergeRecent } from "../store/history-merge.js";
import type { SearchHit } from "../store/search.js";
import type { StateStore } from "../store/state-store.js";
import type { MessageRow, SessionRecord, StoredMessage } from "../store/types.js";
import type { SessionSearchHit, SessionSearchMessage, SessionSearchPort, SessionSearchSession } from "../tools/ports.js";
import { contentText } from "../shared/content-text.js";

/** Messages of context the store returns on each side of a discovery match. */
const HIT_CONTEXT = 2;
const PREVIEW_CHARS = 120;

/**
 * A `SessionSearchPort` for the session `currentSessionId`: `search` and `recent` leave that
 * session (and the ancestors it was forked from) out; `around` and `read` reach every stored
 * session. Each call runs synchronously on the store (a few short reads) and rejects with the
 * store's HermesError only when hermes-acp's own database fails; Python Hermes' database never
 * fails a call (it answers nothing instead, see HermesHistory).
 *
 * Session ids of the two databases do not overlap (hermes-acp's are UUIDs, Hermes' are
 * `YYYYMMDD_HHMMSS_hex`), so ids are used as they are: a session id is looked up in hermes-acp's
 * database first, then in Hermes', and a message id is only ever read in its session's database.
 * Should a file hold an id of hermes-acp's anyway, that id is hermes-acp's session: Hermes' hits
 * and rows of it are left out.
 * Discovery and browse merge both databases (store/history-merge.ts): rank by rank for relevance,
 * by time for `recent` and browse.
 */
export function createSessionSearchPort(store: StateStore, currentSessionId: string): SessionSearchPort {
  const hermes = (): HermesHistory | undefined => store.hermesHistory();
  // An id both databases hold (a copied or forged row) reads hermes-acp's session everywhere, so
  // Hermes' session of that id, and the current session, never come back from discovery or browse.
  const reachable = (id: string): boolean => id !== currentSessionId && store.getSession(id) === undefined;
  const recordOf = (hit: { origin?: "hermes"; sessionId: string }): SessionRecord | undefined =>
    hit.origin === "hermes" ? hermes()?.getSession(hit.sessionId) : store.getSession(hit.sessionId);
  return {
    async search({ query, limit, roleFilter, sort }) {
      const options = {
        query,
        limit,
        excludeSessionId: currentSessionId,
        context: HIT_CONTEXT,
        ...(roleFilter ? { roleFilter } : {}),
        ...(sort ? { sort } : {}),
      };
      const own = store.searchMessages(options).hits;
      const foreign = (hermes()?.search(options) ?? []).filter((hit) => reachable(hit.sessionId));
      return mergeHits(own, foreign, sort ?? "relevance", limit).map((hit) => toHit(hit, recordOf(hit)));
    },

    async around(sessionId, messageId, window) {
      // readSession reads at most 30 messages and gives the session row plus its first messages,
      // which hold the preview
      const own = store.readSession(sessionId);
      if (own) return { session: toSession(own.session, own.messages), messages: store.messagesAround(sessionId, messageId, window).map(toMessage) };
      const history = hermes();
      const foreign = history?.readSession(sessionId);
      if (!history || !foreign) return undefined;
      return { session: toSession(foreign.session, foreign.messages), messages: history.messagesAround(sessionId, messageId, window).map(toMessage) };
    },

    async read(sessionId) {
      const transcript = store.readSession(sessionId) ?? hermes()?.readSession(sessionId);
      if (!transcript) return undefined;
      return {
        session: toSession(transcript.session, transcript.messages),
        messages: transcript.messages.map(toMessage),
        total: transcript.total,
        skipped: transcript.skipped,
        ...(transcript.gapAfterId !== undefined ? { gapAfterId: transcript.gapAfterId } : {}),
      };
    },

    async recent(limit) {
      const own = store.recentSessions({ limit, excludeSessionId: currentSessionId });
      const foreign = (hermes()?.recentSessions({ limit }) ?? []).filter((recent) => reachable(recent.id));
      return mergeRecent(own, foreign, limit).map((recent) => ({
        id: recent.id,
        title: recent.title,
        preview: recent.preview,
        source: recent.source,
        cwd: recent.cwd,
        model: recordOf({ sessionId: recent.id, ...(recent.origin ? { origin: recent.origin } : {}) })?.model ?? null,
        startedAt: recent.startedAt,
        lastActiveAt: recent.lastActiveAt,
        messageCount: recent.messageCount,
        ...(recent.rootSessionId !== recent.id ? { lineageRootId: recent.rootSessionId } : {}),
      }));
    },
  };
}

function toHit(hit: SearchHit, record: SessionRecord | undefined): SessionSearchHit {
  return {
    session: {
      id: hit.sessionId,
      title: hit.title,
      preview: hit.preview,
      source: hit.source,
      cwd: hit.cwd,
      model: record?.model ?? null,
      startedAt: hit.startedAt,
      lastActiveAt: hit.when,
      messageCount: record?.messageCount ?? 0,
      ...(hit.rootSessionId !== hit.sessionId ? { lineageRootId: hit.rootSessionId } : {}),
    },
    messageId: hit.messageId,
    role: hit.role,
    timestamp: hit.timestamp,
    snippet: hit.snippet,
    context: hit.context.map((message) => ({
      id: message.id,
      role: message.role,
      text: message.text,
      ...(message.toolName ? { toolName: message.toolName } : {}),
      isMatch: message.isMatch,
    })),
  };
}

function toSession(record: SessionRecord, firstMessages: readonly MessageRow[]): SessionSearchSession {
  const firstUser = firstMessages.find((row) => row.message.role === "user");
  return {
    id: record.id,
    title: record.title,
    preview: firstUser ? preview(textOf(firstUser.message) ?? "") : "",
    source: record.source,
    cwd: record.cwd,
    model: record.model,
    startedAt: record.startedAt,
    lastActiveAt: record.lastActiveAt,
    messageCount: record.messageCount,
  };
}

/** A stored message in the tools layer's shape (text parts of a multi-part user message joined). */
export function toMessage(row: MessageRow): SessionSearchMessage {
  const { message } = row;
  const base: SessionSearchMessage = { id: row.id, role: message.role, content: textOf(message), timestamp: row.timestamp };
  if (message.role === "tool") {
    base.toolCallId = message.tool_call_id;
    if (message.name) base.toolName = message.name;
  }
  if (message.role === "assistant" && message.tool_calls?.length) {
    base.toolCalls = message.tool_calls.map((call) => ({ id: call.id, name: call.function.name, arguments: call.function.arguments }));
  }
  return base;
}

function textOf(message: StoredMessage): string | null {
  return message.content === null ? null : contentText(message.content);
}

function preview(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= PREVIEW_CHARS ? flat : `${flat.slice(0, PREVIEW_CHARS - 1)}…`;
}
