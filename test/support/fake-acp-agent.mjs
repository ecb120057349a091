#!/usr/bin/env node
/**
 * A scripted, hostile ACP agent for delegation tests, speaking raw JSON lines on stdio (no SDK,
 * so it can send what a well-behaved agent never would). `node fake-acp-agent.mjs <mode>`:
 * - `env`: answers the names of the secret-looking variables it was started with;
 * - `foreign`: asks permission for a session that is not its own, then for its own, and answers
 *   both outcomes;
 * - `fs`: asks to read a file (fs was not advertised) and answers what it got;
 * - `huge`: sends malformed lines, then one answer of many megabytes in many chunks;
 * - `silent`: never answers anything (and ignores SIGTERM), with a `sleep` child in its own session.
 * Every mode ends its prompt with `end_turn` (but `silent`).
 */
import { spawn } from "node:child_process";

const mode = process.argv[2] ?? "env";
const SESSION = "fake-session-1";
let nextId = 1000;
const pending = new Map();

const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
const request = (method, params) =>
  new Promise((resolve) => {
    const id = nextId++;
    pending.set(id, resolve);
    send({ id, method, params });
  });
const say = (text) => send({ method: "session/update", params: { sessionId: SESSION, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } } } });
const permission = (sessionId, title) =>
  request("session/request_permission", {
    sessionId,
    toolCall: { toolCallId: `call-${nextId}`, title, kind: "execute", rawInput: { command: title } },
    options: [
      { optionId: "yes", name: "Allow", kind: "allow_once" },
      { optionId: "no", name: "Reject", kind: "reject_once" },
    ],
  });
const outcome = (reply) => (reply.result?.outcome?.outcome === "selected" ? reply.result.outcome.optionId : reply.result?.outcome?.outcome ?? `error ${reply.error?.code}`);

async function prompt() {
  if (mode === "env") {
    say(JSON.stringify(Object.keys(process.env).filter((name) => /KEY|TOKEN|SECRET/.test(name)).sort()));
  } else if (mode === "foreign") {
    const foreign = await permission("someone-elses-session", "touch foreign-was-allowed");
    const own = await permission(SESSION, "touch own-was-allowed");
    say(`foreign=${outcome(foreign)} own=${outcome(own)}`);
  } else if (mode === "fs") {
    const reply = await request("fs/read_text_file", { sessionId: SESSION, path: "/etc/hostname" });
    say(reply.error ? `fs error ${reply.error.code}` : `fs read ${JSON.stringify(reply.result)}`);
  } else if (mode === "huge") {
    process.stdout.write("this is not json\n{\"jsonrpc\":\"2.0\"}\n[1,2,3]\n{\"jsonrpc\":\"2.0\",\"method\":\"session/update\",\"params\":{}}\n");
    const chunk = "a".repeat(1 << 20);
    for (let i = 0; i < 24; i++) say(chunk);
  }
  return { stopReason: "end_turn" };
}

async function handle(message) {
  if (message.id !== undefined && message.method === undefined) {
    pending.get(message.id)?.(message);
    pending.delete(message.id);
    return;
  }
  if (mode === "silent") return;
  if (message.method === "initialize") send({ id: message.id, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] } });
  else if (message.method === "session/new") send({ id: message.id, result: { sessionId: SESSION } });
  else if (message.method === "session/prompt") send({ id: message.id, result: await prompt() });
  else if (message.id !== undefined) send({ id: message.id, error: { code: -32601, message: "Method not found" } });
}

if (mode === "silent") {
  process.on("SIGTERM", () => undefined);
  spawn("sleep", [process.argv[3] ?? "3600"], { detached: true, stdio: "ignore" }).unref();
}

let buffered = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  buffered += chunk;
  for (let end = buffered.indexOf("\n"); end >= 0; end = buffered.indexOf("\n")) {
    const line = buffered.slice(0, end);
    buffered = buffered.slice(end + 1);
    if (line.trim()) void handle(JSON.parse(line));
  }
});
process.stdin.on("end", () => {
  if (mode !== "silent") process.exit(0);
});
