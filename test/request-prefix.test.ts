import { methods } from "@agentclientprotocol/sdk/unstable";
import { describe, expect, it } from "vitest";
import { TITLE_PROMPT } from "../src/runtime/title.js";
import { acpPairSuite } from "./support/acp-pair-suite.js";
import { systemPromptOf, type RecordedRequest } from "./support/fake-llm.js";
import { FORM_CAPABLE_CLIENT, fullToolsetConfig } from "./support/full-toolset.js";

/**
 * Prefix caching: every model call of a session's turns starts with the same bytes — the system
 * prompt and the tool schemas — whatever happens between them: tool calls, a memory write (the
 * prompt keeps the snapshot it started with), the background title call, context compression.
 * Through the real adapter (in memory), the full `hermes-acp` toolset, the scripted model.
 */
const suite = acpPairSuite();

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed request JSON
const isTurnCall = (body: any): boolean => Array.isArray(body?.tools);
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed request JSON
const isTitleCall = (body: any): boolean => !isTurnCall(body) && systemPromptOf(body) === TITLE_PROMPT;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed request JSON
const isSummaryCall = (body: any): boolean => !isTurnCall(body) && systemPromptOf(body).includes("handoff summaries");

describe("the request prefix across a session's turns", () => {
  it("sends the system prompt and tool schemas byte for byte the same on every call, after a title and a compression too", async () => {
    suite.home.writeConfig(
      fullToolsetConfig(suite.llm.baseUrl, { model: ["context_length: 100000"], extra: "compression:\n  protect_first_n: 2\n  protect_last_n: 4\n" }),
    );
    const pair = suite.connect({ clientCapabilities: FORM_CAPABLE_CLIENT }, { HERMES_TITLE_GENERATION: "" });
    await pair.initialize();
    const { sessionId } = await pair.connection.agent.request(methods.agent.session.new, { cwd: suite.home.workspace, mcpServers: [] });
    const prompt = async (text: string): Promise<void> => {
      const response = await pair.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
      expect(response.stopReason).toBe("end_turn");
    };
    const live = pair.sessions.get(sessionId).session;

    suite.llm.push(
      { when: isTitleCall, text: '{"title": "Remember the tab preference"}' },
      { when: isTurnCall, tool_calls: [{ name: "memory", arguments: { action: "add", target: "user", content: "Prefers tabs over spaces." } }] },
      { when: isTurnCall, tool_calls: [{ name: "todo", arguments: { todos: [{ id: "1", content: "check the prefix", status: "in_progress" }] } }] },
      { when: isTurnCall, text: "Noted." },
    );
    await prompt("remember that I like tabs");
    await live.titleSettled();
    for (let turn = 2; turn <= 5; turn += 1) {
      // The fifth answer reports 60,000 prompt tokens: past half the 100,000-token window.
      suite.llm.push({ when: isTurnCall, text: `answer ${turn}`, ...(turn === 5 ? { usage: { prompt_tokens: 60_000 } } : {}) });
      await prompt(`question ${turn}`);
    }
    suite.llm.push({ when: isSummaryCall, text: "## Goal\nRemember preferences\n## Progress\nSUMMARY" }, { when: isTurnCall, text: "answer 6" });
    await prompt("question 6");
    suite.llm.push({ when: isTurnCall, text: "answer 7" });
    await prompt("question 7");
    expect(suite.llm.remaining()).toBe(0);

    const requests = suite.llm.requests;
    const turnCalls = requests.filter((request) => isTurnCall(request.body));
    const titleAt = requests.findIndex((request) => isTitleCall(request.body));
    const summaryAt = requests.findIndex((request) => isSummaryCall(request.body));
    expect(titleAt).toBeGreaterThanOrEqual(0);
    expect(summaryAt).toBeGreaterThan(titleAt);
    expect(requests.slice(summaryAt + 1).some((request) => isTurnCall(request.body))).toBe(true);
    expect(turnCalls).toHaveLength(9);

    const systemBytes = (request: RecordedRequest): string => JSON.stringify(request.body.messages[0]);
    const toolBytes = (request: RecordedRequest): string => JSON.stringify(request.body.tools);
    expect(new Set(turnCalls.map(systemBytes))).toEqual(new Set([JSON.stringify({ role: "system", content: live.systemPrompt })]));
    expect(new Set(turnCalls.map(toolBytes)).size).toBe(1);
    // The whole toolset, clarify included; the memory written in turn 1 waits for the next session.
    const offered = (turnCalls[0]!.body.tools as Array<{ function: { name: string } }>).map((tool) => tool.function.name);
    expect(offered).toEqual(expect.arrayContaining(["web_search", "terminal", "patch", "vision_analyze", "skill_manage", "browser_vision", "todo", "memory", "session_search", "execute_code", "delegate_task", "clarify"]));
    expect(live.systemPrompt).not.toContain("Prefers tabs over spaces.");
  });
});
