/**
 * The `session_search` port over state.db: the tools layer's plain types filled from the store.
 */
import type { StateStore } from "../store/state-store.js";
import type { MessageRow, SessionRecord, StoredMessage } from "../store/types.js";
import type { SessionSearchMessage, SessionSearchPort, SessionSearchSession } from "../tools/ports.js";
import { contentText } from "../shared/content-text.js";

/** Messages of context the store returns on each side of a discovery match. */
const HIT_CONTEXT = 2;
const PREVIEW_CHARS = 120;

/**
 * A `SessionSearchPort` for the session `currentSessionId`: `search` and `recent` leave that
 * session out (its live messages are already in the model's context); `around` and `read` reach
 * every stored session. Each call runs synchronously on the store (one short read transaction or
 * a few primary-key lookups) and rejects with the store's HermesError when the database fails.
 */
export function createSessionSearchPort(store: StateStore, currentSessionId: string): SessionSearchPort {
  return {
    async search({ query, limit, roleFilter, sort }) {
      const { hits } = store.searchMessages({
        query,
        limit,
        excludeSessionId: currentSessionId,
        context: HIT_CONTEXT,
        ...(roleFilter ? { roleFilter } : {}),
        ...(sort ? { sort } : {}),
      });
      return hits.map((hit) => {
        const record = store.getSession(hit.sessionId);
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
      });
    },

    async around(sessionId, messageId, window) {
      // readSession reads at most 30 messages and gives the session row plus its first messages,
      // which hold the preview
      const transcript = store.readSession(sessionId);
      if (!transcript) return undefined;
      return { session: toSession(transcript.session, transcript.messages), messages: store.messagesAround(sessionId, messageId, window).map(toMessage) };
    },

    async read(sessionId) {
      const transcript = store.readSession(sessionId);
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
      return store.recentSessions({ limit, excludeSessionId: currentSessionId }).map((recent) => ({
        id: recent.id,
        title: recent.title,
        preview: recent.preview,
        source: recent.source,
        cwd: recent.cwd,
        model: store.getSession(recent.id)?.model ?? null,
        startedAt: recent.startedAt,
        lastActiveAt: recent.lastActiveAt,
        messageCount: recent.messageCount,
      }));
    },
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
