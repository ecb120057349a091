/**
 * DESIGN §7 streaming row: the fake model streams `chunks` small text chunks with no delay, and
 * the figure is the number of `agent_message_chunk` notifications the client received divided by
 * the time from the first of them to the last (each stamped when the SDK client app delivers it).
 * One untimed stream of a tenth the size first warms the path (JIT); then `runs` streamed prompts
 * in the same session. The relayed text is checked to equal what the model sent.
 */
import type { SessionNotification } from "@agentclientprotocol/sdk/unstable";
import { withBenchAgent } from "./harness.js";

export interface StreamRun {
  modelChunks: number;
  notifications: number;
  /** First to last agent_message_chunk, ms. */
  spanMs: number;
  /** Notifications per second over `spanMs`. */
  perSecond: number;
  /** `session/prompt` sent → response received, ms. */
  promptMs: number;
  /** Fake server: request arrival → whole stream written, ms. */
  modelMs: number;
}

export async function measureStreaming(chunks: number, runs: number): Promise<StreamRun[]> {
  let stamps: number[] = [];
  let text = "";
  const onUpdate = ({ update }: SessionNotification): void => {
    if (update.sessionUpdate !== "agent_message_chunk") return;
    stamps.push(performance.now());
    if (update.content.type === "text") text += update.content.text;
  };
  return withBenchAgent(
    async (bench) => {
      const sessionId = await bench.newSession();
      const warmUp = Array.from({ length: Math.ceil(chunks / 10) }, (_, i) => `w${i % 100} `);
      bench.llm.push({ text: warmUp.join(""), chunks: warmUp });
      await bench.prompt(sessionId, "warm up");
      const results: StreamRun[] = [];
      for (let run = 0; run < runs; run += 1) {
        const pieces = Array.from({ length: chunks }, (_, i) => `w${i % 100} `);
        bench.llm.push({ text: pieces.join(""), chunks: pieces });
        stamps = [];
        text = "";
        const started = performance.now();
        await bench.prompt(sessionId, `stream ${chunks} chunks`);
        const promptMs = performance.now() - started;
        if (text !== pieces.join("")) throw new Error(`relayed text differs from the model's (${text.length} vs ${pieces.join("").length} chars)`);
        const call = bench.llm.requests.at(-1);
        const spanMs = stamps.at(-1)! - stamps[0]!;
        results.push({
          modelChunks: chunks,
          notifications: stamps.length,
          spanMs,
          perSecond: spanMs > 0 ? (stamps.length / spanMs) * 1000 : Infinity,
          promptMs,
          modelMs: call?.finishedAt !== undefined ? call.finishedAt - call.receivedAt : NaN,
        });
      }
      return results;
    },
    { onUpdate },
  );
}
