import { canElicitForms } from "./elicitation.js";
import type {
  AgentContext,
  ClientCapabilities,
  ForkSessionRequest,
  ForkSessionResponse,
  ListSessionsRequest,
  ListSessionsResponse,
  LoadSessionRequest,
  LoadSessionResponse,
  ResumeSessionRequest,
  SessionConfigOption,
} from "@agentclientprotocol/sdk/unstable";
import type { Runtime, TranscriptEntry } from "../runtime/runtime.js";
import type { AgentSession } from "../runtime/session.js";
import { HermesError } from "../shared/errors.js";
import { log } from "../shared/logger.js";
import { advertiseCommands } from "./commands/registry.js";
import { parseMcpServers } from "./mcp-params.js";
import { modeState, sessionConfigOptions } from "./config-options.js";
import { afterSessionOpened } from "./session-status.js";
import { bridgeCompaction } from "./compaction-bridge.js";
import { replayUpdates, streamReplay } from "./replay.js";
import type { LiveSession, SessionManager } from "./session-manager.js";

/** What new / load / resume / fork answer besides the id: the session's modes and config options. */
export function sessionState(runtime: Runtime, session: AgentSession): Pick<LoadSessionResponse, "modes" | "configOptions"> & { configOptions: SessionConfigOption[] } {
  return { modes: modeState(session.approvals.mode), configOptions: sessionConfigOptions(session, runtime.catalogSnapshot()) };
}

/**
 * The answer of new / load / resume / fork for `live`, and what follows it: commands, usage, a
 * background model-list refresh; from now on its compressions reach the client (`bridgeCompaction`,
 * as `capabilities`, what the client advertised, asks). Must be the handler's last step (the
 * follow-ups are sent after the response is written).
 */
export function opened(runtime: Runtime, live: LiveSession, options: { usage: boolean; capabilities: () => ClientCapabilities }): ReturnType<typeof sessionState> {
  const state = sessionState(runtime, live.session);
  bridgeCompaction(live, options.capabilities);
  advertiseCommands(live);
  afterSessionOpened(live, runtime, state.configOptions, options);
  return state;
}

function notFound(sessionId: string): HermesError {
  return new HermesError("session_not_found", `Session not found: ${sessionId}`, { sessionId });
}

/**
 * The live session for `sessionId` in `cwd`: the one in memory when it is there (and either in
 * the same cwd or busy), else restored from state.db, with the stored transcript when it was
 * read. Unknown → HermesError `session_not_found`. `rawMcpServers` (the request's) are
 * validated before anything else; a session kept in memory connects those it lacks.
 */
async function liveSession(
  runtime: Runtime,
  sessions: SessionManager,
  client: AgentContext,
  sessionId: string,
  cwd: string,
  rawMcpServers?: unknown,
): Promise<{ live: LiveSession; transcript?: TranscriptEntry[] }> {
  const mcpServers = parseMcpServers(rawMcpServers);
  const existing = sessions.find(sessionId);
  if (existing && (existing.session.cwd === cwd || existing.isRunning)) {
    runtime.sessions.addMcpServers(existing.session, mcpServers);
    return { live: existing };
  }
  // What the live session has queued must be in state.db before it is read back; a session whose
  // writes cannot be stored yet stays as it is (its history lives only in memory).
  await existing?.session.saved();
  if (existing?.session.unsaved) {
    log.warn(`session ${sessionId} has writes state.db does not hold yet; it stays open as it is`);
    runtime.sessions.addMcpServers(existing.session, mcpServers);
    return { live: existing };
  }
  const restored = await runtime.sessions.restoreWithTranscript(sessionId, cwd, { mcpServers, canAskUser: canElicitForms(sessions.clientCapabilities) });
  if (!restored) {
    if (existing) {
      runtime.sessions.addMcpServers(existing.session, mcpServers);
      return { live: existing };
    }
    throw notFound(sessionId);
  }
  if (existing) await sessions.close(sessionId);
  return { live: sessions.add(restored.session, client), transcript: restored.transcript };
}

/**
 * `session/load`: restore, then replay the whole conversation as updates before answering: as
 * one run written as it is built (`UpdateSender.sendAll`; the session's other updates wait until
 * it is out), or, while a turn of the session runs on this connection, all queued at once, so
 * nothing of the turn (its permission requests included) can come between. A replay failure is
 * logged (what was replayed before it stays sent) and the load still succeeds.
 */
export async function handleLoad(runtime: Runtime, sessions: SessionManager, client: AgentContext, params: LoadSessionRequest): Promise<LoadSessionResponse> {
  const { live, transcript } = await liveSession(runtime, sessions, client, params.sessionId, params.cwd, params.mcpServers);
  try {
    const stored = transcript ?? runtime.directory.transcript(live.session.id);
    const entries = stored.length ? stored : live.session.history.map((message) => ({ message }));
    if (live.isRunning) {
      // A turn of this session is running here: its updates and requests stay after the whole replay.
      for (const update of replayUpdates(entries, live.session.tools, live.session.cwd)) live.updates.send(update);
      await live.updates.flushed();
    } else {
      await live.updates.sendAll(streamReplay(entries, live.session.tools, live.session.cwd));
    }
  } catch (error) {
    log.error(`history replay for session/load of ${params.sessionId} failed; the load still succeeds`, error);
  }
  return opened(runtime, live, { usage: true, capabilities: () => sessions.clientCapabilities });
}

/** `session/resume`: restore without replay. */
export async function handleResume(runtime: Runtime, sessions: SessionManager, client: AgentContext, params: ResumeSessionRequest): Promise<LoadSessionResponse> {
  const { live } = await liveSession(runtime, sessions, client, params.sessionId, params.cwd, params.mcpServers);
  return opened(runtime, live, { usage: true, capabilities: () => sessions.clientCapabilities });
}

/** `session/fork`: a new session with a deep copy of the history, in the new cwd, parent set. */
export async function handleFork(runtime: Runtime, sessions: SessionManager, client: AgentContext, params: ForkSessionRequest): Promise<ForkSessionResponse> {
  const mcpServers = parseMcpServers(params.mcpServers);
  await sessions.find(params.sessionId)?.session.saved();
  let forked = await runtime.sessions.fork(params.sessionId, params.cwd, { mcpServers, canAskUser: canElicitForms(sessions.clientCapabilities) });
  if (!forked) {
    // A session that was opened but never prompted has nothing stored: its fork starts empty.
    if (!sessions.find(params.sessionId)) throw notFound(params.sessionId);
    forked = await runtime.sessions.create(params.cwd, { mcpServers, canAskUser: canElicitForms(sessions.clientCapabilities) });
  }
  return { sessionId: forked.id, ...opened(runtime, sessions.add(forked, client), { usage: false, capabilities: () => sessions.clientCapabilities }) };
}

/** `session/list`: stored ACP sessions, newest first, one page; an unknown cursor gives an empty page. */
export function handleList(runtime: Runtime, params: ListSessionsRequest): ListSessionsResponse {
  const page = runtime.directory.list({
    source: "acp",
    limit: runtime.config.orDefaults().sessions.page_size,
    ...(params.cwd ? { cwd: params.cwd } : {}),
    ...(params.cursor ? { cursor: params.cursor } : {}),
  });
  return {
    sessions: page.sessions.map((session) => ({
      sessionId: session.id,
      cwd: session.cwd ?? "",
      title: session.title,
      updatedAt: new Date(session.lastActiveAt).toISOString(),
    })),
    nextCursor: page.nextCursor ?? null,
  };
}

/** `session/close`: cancels a running turn, frees memory and processes, keeps the history. */
export async function handleClose(sessions: SessionManager, sessionId: string): Promise<Record<string, never>> {
  if (!(await sessions.close(sessionId, "closed"))) throw notFound(sessionId);
  return {};
}

/** `session/delete`: closes the session and removes it and its messages from state.db. */
export async function handleDelete(runtime: Runtime, sessions: SessionManager, sessionId: string): Promise<Record<string, never>> {
  const wasLive = await sessions.close(sessionId);
  const deleted = runtime.directory.delete(sessionId);
  if (!deleted && !wasLive) throw notFound(sessionId);
  return {};
}
