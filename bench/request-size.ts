/**
 * Issue 17 row: what every model call of a session carries before any conversation — the system
 * prompt and the tool schemas — with the full `hermes-acp` toolset (every toolset available:
 * `test/support/full-toolset.ts`, an editor that shows forms so `clarify` is in). Read from the
 * first request the fake model server receives from the built binary, so it is what the
 * chat-completions provider sends: system prompt text plus `JSON.stringify(tools)`. Tokens are
 * estimated as chars / 4, as `src/agent/context.ts` does. Not timed: one agent, one prompt.
 */
import { CHARS_PER_TOKEN } from "../src/agent/context.js";
import { TOOLSETS } from "../src/tools/toolsets.js";
import { FORM_CAPABLE_CLIENT, fullToolsetConfig } from "../test/support/full-toolset.js";
import { withBenchAgent } from "./harness.js";

export interface ToolsetSize {
  toolset: string;
  tools: number;
  /** Its tools' share of `JSON.stringify(tools)`, separators included. */
  chars: number;
}

export interface RequestSize {
  systemChars: number;
  toolsChars: number;
  toolCount: number;
  /** In the order the model sees the tools. */
  perToolset: ToolsetSize[];
}

export const estimatedTokens = (chars: number): number => Math.ceil(chars / CHARS_PER_TOKEN);

/** The toolset (not `hermes-acp`, which only includes others) that lists `tool`. */
function toolsetOf(tool: string): string {
  return Object.entries(TOOLSETS).find(([, toolset]) => toolset.tools?.includes(tool))?.[0] ?? "(none)";
}

export async function measureRequestSize(): Promise<RequestSize> {
  return withBenchAgent(
    async (bench) => {
      const sessionId = await bench.newSession();
      bench.llm.push({ text: "ok" });
      await bench.prompt(sessionId, "hi");
      const body = bench.llm.requests[0]?.body as { messages?: Array<{ role: string; content: unknown }>; tools?: Array<{ function: { name: string } }> } | undefined;
      const system = body?.messages?.[0];
      if (system?.role !== "system" || typeof system.content !== "string") throw new Error("the first model request has no system prompt");
      const tools = body?.tools ?? [];
      const perToolset: ToolsetSize[] = [];
      for (const tool of tools) {
        const name = toolsetOf(tool.function.name);
        let entry = perToolset.find((candidate) => candidate.toolset === name);
        if (!entry) perToolset.push((entry = { toolset: name, tools: 0, chars: 0 }));
        entry.tools += 1;
        entry.chars += JSON.stringify(tool).length + 1;
      }
      return { systemChars: system.content.length, toolsChars: JSON.stringify(tools).length, toolCount: tools.length, perToolset };
    },
    { config: (baseUrl) => fullToolsetConfig(baseUrl), clientCapabilities: FORM_CAPABLE_CLIENT },
  );
}
