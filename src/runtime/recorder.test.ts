import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { loadSqlite, type Database } from "../store/sqlite.js";
import { StateStore } from "../store/state-store.js";
import { SessionRecorder, STREAMING_FINISH_REASON } from "./recorder.js";

/**
 * The recorder against a real state.db, with a second real connection taking the write lock
 * (`BEGIN IMMEDIATE`) as another process would. No wall-clock limits: tests wait for events.
 */
let root: string;
let store: StateStore;
let other: Database | undefined;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "hermes-recorder-"));
  store = new StateStore(join(root, "state.db"));
});
afterEach(() => {
  if (other?.inTransaction) other.exec("ROLLBACK");
  other?.close();
  other = undefined;
  store.close();
  rmSync(root, { recursive: true, force: true });
});

const meta = () => store.createSession({ id: "s1", cwd: root, model: "m", provider: "p" });
const texts = () => store.loadMessages("s1").map((message) => `${message.role}:${message.content}`);

/** Takes the write lock from another connection; answers the function that releases it. */
function holdWriteLock(): () => void {
  store.getSession("s1"); // the file exists and is migrated
  other = new (loadSqlite())(join(root, "state.db"));
  other.exec("BEGIN IMMEDIATE");
  return () => other!.exec("COMMIT");
}

/** Resolves after the event loop has run `turns` times (other work got its turns). */
async function loopTurns(turns: number): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
}

describe("SessionRecorder", () => {
  it("stores a turn's writes together, in order, once settled", async () => {
    const recorder = new SessionRecorder(store, meta());
    recorder.append({ role: "user", content: "question" });
    recorder.append({ role: "assistant", content: "answer" });
    recorder.addUsage({ input: 10, output: 5, reasoning: 0 });
    recorder.setTitle("A title");
    await recorder.settle();
    expect(texts()).toEqual(["user:question", "assistant:answer"]);
    expect(store.getSession("s1")).toMatchObject({ title: "A title", inputTokens: 10, outputTokens: 5, messageCount: 2 });
    expect(recorder.takeFailure()).toBeUndefined();
  });

  it("stores the messages of one synchronous run in one transaction, before the event loop's next macrotask", async () => {
    const recorder = new SessionRecorder(store, meta());
    recorder.append({ role: "user", content: "question" });
    await Promise.resolve();
    expect(texts()).toEqual(["user:question"]);
    const transactions = vi.spyOn(store, "together");
    recorder.append({ role: "assistant", content: "", tool_calls: [] });
    for (let i = 0; i < 5; i++) recorder.append({ role: "tool", tool_call_id: `c${i}`, name: "read_file", content: `result ${i}` });
    expect(texts()).toHaveLength(1);
    const storedBeforeNextMacrotask = await new Promise<string[]>((resolve) => setImmediate(() => resolve(texts())));
    expect(storedBeforeNextMacrotask).toEqual(["user:question", "assistant:", ...[0, 1, 2, 3, 4].map((i) => `tool:result ${i}`)]);
    expect(transactions).toHaveBeenCalledTimes(1);
    expect(recorder.pending).toBe(false);
  });

  it("stores a run of more messages than one transaction takes before the event loop's next macrotask too", async () => {
    const recorder = new SessionRecorder(store, meta());
    for (let i = 0; i < 250; i++) recorder.append({ role: "tool", tool_call_id: `c${i}`, name: "read_file", content: `result ${i}` });
    const stored = await new Promise<string[]>((resolve) => setImmediate(() => resolve(texts())));
    expect(stored).toEqual(Array.from({ length: 250 }, (_, i) => `tool:result ${i}`));
  });

  it("keeps writes queued while another process holds the lock, without holding up the event loop, and stores them in order after", async () => {
    const release = holdWriteLock();
    const recorder = new SessionRecorder(store, meta());
    recorder.append({ role: "user", content: "first" });
    await loopTurns(20);
    recorder.append({ role: "assistant", content: "second" });
    recorder.append({ role: "user", content: "third" });
    await loopTurns(20);
    expect(recorder.pending).toBe(true);
    expect(texts()).toEqual([]);
    release();
    await recorder.settle(60_000);
    expect(recorder.pending).toBe(false);
    expect(texts()).toEqual(["user:first", "assistant:second", "user:third"]);
    expect(store.getSession("s1")?.messageCount).toBe(3);
    expect(recorder.takeFailure()).toBeUndefined();
  });

  it("reports a lock that outlasts the grace, and still stores everything once it clears", async () => {
    const release = holdWriteLock();
    const recorder = new SessionRecorder(store, meta(), { settleGraceMs: 50 });
    recorder.append({ role: "user", content: "kept" });
    await recorder.settle();
    expect(recorder.takeFailure()).toMatch(/locked by another process/);
    expect(recorder.takeFailure()).toBeUndefined();
    release();
    await recorder.settle(60_000);
    expect(texts()).toEqual(["user:kept"]);
  });

  it("reports a database that can never be written (a newer schema) at once, and queues nothing more", async () => {
    store.getSession("s1");
    const db = new (loadSqlite())(join(root, "state.db"));
    db.pragma("user_version = 99");
    db.close();
    store.close();
    const recorder = new SessionRecorder(store, meta());
    recorder.append({ role: "user", content: "lost?" });
    await recorder.settle();
    expect(recorder.takeFailure()).toMatch(/schema version 99, newer/);
    expect(recorder.pending).toBe(false);
    recorder.append({ role: "assistant", content: "not queued" });
    expect(recorder.pending).toBe(false);
    await recorder.settle();
    expect(recorder.takeFailure()).toBeUndefined();
  });

  it("never stores a partial answer of a failed turn after the next user message", async () => {
    const recorder = new SessionRecorder(store, meta(), { streamEveryChars: 1 });
    recorder.append({ role: "user", content: "Q1" });
    recorder.streaming("half an answer", true);
    await recorder.settle();
    // No endTurn (the turn threw): the next turn starts.
    recorder.append({ role: "user", content: "Q2" });
    recorder.streaming("answer to Q2", true);
    recorder.append({ role: "assistant", content: "answer to Q2" });
    await recorder.settle();
    expect(texts()).toEqual(["user:Q1", "user:Q2", "assistant:answer to Q2"]);
  });

  it("writes a session row with the metadata the message was queued with", async () => {
    const release = holdWriteLock();
    const recorder = new SessionRecorder(store, meta());
    recorder.append({ role: "user", content: "first" });
    recorder.switchModel({ model: "m2", provider: "p2", baseUrl: "http://x", systemPrompt: "new prompt" });
    release();
    await recorder.settle(60_000);
    expect(store.getSession("s1")).toMatchObject({ model: "m2", provider: "p2" });
    expect(store.getSession("s1")?.systemPrompt).toBeNull();
  });

  it("stores streamed text as a partial answer, then the answer in its place", async () => {
    const recorder = new SessionRecorder(store, meta(), { streamEveryChars: 10, streamEveryMs: 60_000 });
    recorder.append({ role: "user", content: "tell me" });
    recorder.streaming("Once upon", true);
    recorder.streaming(" a time", false);
    await recorder.settle();
    const partial = store.loadMessageRows("s1");
    expect(partial.map((row) => row.message)).toEqual([
      { role: "user", content: "tell me" },
      { role: "assistant", content: "Once upon a time", finish_reason: STREAMING_FINISH_REASON },
    ]);
    recorder.streaming(" there was a fox", false);
    recorder.append({ role: "assistant", content: "Once upon a time there was a fox.", finish_reason: "stop" });
    await recorder.settle();
    const rows = store.loadMessageRows("s1");
    expect(rows.map((row) => row.message)).toEqual([
      { role: "user", content: "tell me" },
      { role: "assistant", content: "Once upon a time there was a fox.", finish_reason: "stop" },
    ]);
    expect(rows[1]!.id).toBe(partial[1]!.id);
    expect(store.getSession("s1")?.messageCount).toBe(2);
    expect(store.searchMessages({ query: "fox" }).hits.map((hit) => hit.sessionId)).toEqual(["s1"]);
  });

  it("stores streamed text after the time interval even when little arrived", async () => {
    const recorder = new SessionRecorder(store, meta(), { streamEveryMs: 1 });
    recorder.append({ role: "user", content: "q" });
    recorder.streaming("partial words", true);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await recorder.settle();
    expect(texts()).toEqual(["user:q", "assistant:partial words"]);
  });

  it("removes a partial answer that no message completed when the turn ends", async () => {
    const recorder = new SessionRecorder(store, meta(), { streamEveryChars: 1 });
    recorder.append({ role: "user", content: "q" });
    recorder.streaming("never finished", true);
    await recorder.settle();
    expect(texts()).toEqual(["user:q", "assistant:never finished"]);
    recorder.endTurn();
    await recorder.settle();
    expect(texts()).toEqual(["user:q"]);
    expect(store.getSession("s1")?.messageCount).toBe(1);
  });
});
