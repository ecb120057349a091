/**
 * `session/load` of a stored 10,000-message session through the built binary: request written →
 * response line read, with the whole replay (every `session/update`) arriving before the response.
 * The client is a raw NDJSON reader (JSON.parse per line, no schema validation), so the figure is
 * the agent's and the pipe's time, not a client library's. Each sample is a fresh agent process,
 * so the load restores from state.db as after a restart.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { StateStore } from "../src/store/state-store.js";
import { BUILT_BINARY } from "../test/support/acp-client.js";
import { createTempHome } from "../test/support/temp-home.js";
import { conversation, mulberry32, newTextSource } from "./store-corpus.js";

export interface SessionLoadResult {
  messages: number;
  samples: number[];
  updates: number;
}

export async function measureSessionLoad(count: number, messages = 10_000): Promise<SessionLoadResult> {
  const home = createTempHome({ baseUrl: "http://127.0.0.1:9/v1" });
  try {
    const store = new StateStore(join(home.home, "state.db"));
    const meta = store.createSession({ id: "long", cwd: home.workspace, model: "test-model", provider: "custom", systemPrompt: "You are Hermes." });
    const random = mulberry32(3);
    store.appendMessages(meta, [...conversation(random, newTextSource(random), messages, "en")]);
    store.close();
    const samples: number[] = [];
    let updates = 0;
    for (let i = 0; i < count; i += 1) {
      const sample = await loadOnce(home.env(), home.workspace);
      samples.push(sample.ms);
      updates = sample.updates;
      if (updates < messages / 2) throw new Error(`only ${updates} replay updates arrived before the load response`);
    }
    return { messages, samples, updates };
  } finally {
    home.cleanup();
  }
}

function loadOnce(env: NodeJS.ProcessEnv, cwd: string): Promise<{ ms: number; updates: number }> {
  const child = spawn(process.execPath, [BUILT_BINARY, "acp"], { env, stdio: ["pipe", "pipe", "ignore"] });
  const send = (frame: unknown): void => {
    child.stdin.write(`${JSON.stringify(frame)}\n`);
  };
  return new Promise((resolve, reject) => {
    let buffered = "";
    let started = 0;
    let updates = 0;
    child.on("error", reject);
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      buffered += chunk;
      let newline: number;
      while ((newline = buffered.indexOf("\n")) >= 0) {
        const frame = JSON.parse(buffered.slice(0, newline)) as { id?: number; method?: string; error?: unknown };
        buffered = buffered.slice(newline + 1);
        if (frame.method === "session/update") updates += 1;
        if (frame.id === 1) {
          started = performance.now();
          send({ jsonrpc: "2.0", id: 2, method: "session/load", params: { sessionId: "long", cwd, mcpServers: [] } });
        } else if (frame.id === 2) {
          const ms = performance.now() - started;
          child.stdin.end();
          if (frame.error) reject(new Error(`session/load failed: ${JSON.stringify(frame.error)}`));
          else resolve({ ms, updates });
        }
      }
    });
    send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } });
  });
}
