/**
 * Adapter overhead on a realistic turn: a session resumed with 100 stored messages, and a prompt
 * whose answer first calls 5 tools (read_file on real files, one model message) and then answers.
 * Overhead = round trip − the scripted model's own time for both calls (request arrival to answer
 * written, as the fake server saw it); it includes running the 5 tools and relaying every update.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { methods } from "@agentclientprotocol/sdk/unstable";
import { StateStore } from "../src/store/state-store.js";
import { withBenchAgent } from "./harness.js";
import { conversation, mulberry32, newTextSource } from "./store-corpus.js";

export interface HeavyPromptResult {
  samples: Array<{ roundTripMs: number; modelMs: number; overheadMs: number }>;
  historySent: number;
}

export async function measureHeavyPrompt(count: number): Promise<HeavyPromptResult> {
  return withBenchAgent(async (bench) => {
    const { home, agent, llm } = bench;
    const store = new StateStore(join(home.home, "state.db"));
    const meta = store.createSession({ id: "busy", cwd: home.workspace, model: "test-model", provider: "custom", systemPrompt: "You are Hermes." });
    const random = mulberry32(7);
    store.appendMessages(meta, [...conversation(random, newTextSource(random), 100, "en")]);
    store.close();
    for (let i = 0; i < 5; i += 1) writeFileSync(join(home.workspace, `file${i}.ts`), `export const value${i} = ${i};\n`.repeat(40));
    await agent.connection.agent.request(methods.agent.session.resume, { sessionId: "busy", cwd: home.workspace, mcpServers: [] });

    const samples: HeavyPromptResult["samples"] = [];
    let historySent = 0;
    for (let n = 0; n <= count; n += 1) {
      llm.push(
        { tool_calls: Array.from({ length: 5 }, (_, i) => ({ id: `c${n}_${i}`, name: "read_file", arguments: { path: `file${i}.ts`, offset: n + 1 } })) },
        { text: "All five files export one constant each." },
      );
      const before = llm.requests.length;
      const started = performance.now();
      await bench.prompt("busy", `Summarise the five files (${n}).`);
      const roundTripMs = performance.now() - started;
      const calls = llm.requests.slice(before);
      if (calls.length !== 2) throw new Error(`turn made ${calls.length} model calls, expected 2`);
      const modelMs = calls.reduce((sum, call) => sum + ((call.finishedAt ?? call.receivedAt) - call.receivedAt), 0);
      historySent = calls[0]?.body.messages.length ?? 0;
      if (n > 0) samples.push({ roundTripMs, modelMs, overheadMs: roundTripMs - modelMs });
    }
    return { samples, historySent };
  });
}
