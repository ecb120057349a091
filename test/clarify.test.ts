import { methods, type CreateElicitationRequest, type CreateElicitationResponse } from "@agentclientprotocol/sdk/unstable";
import { describe, expect, it } from "vitest";
import { log } from "../src/shared/logger.js";
import { schemaProblems } from "./support/acp-schema.js";
import { acpPairSuite } from "./support/acp-pair-suite.js";
import { type InMemoryAgent, type InMemoryAgentOptions } from "./support/in-memory-acp.js";

/** `clarify` through ACP form elicitation: offered only to editors that show forms, answered as Hermes answers. */
log.configure({ level: "warn" });
const suite = acpPairSuite();

async function session(options: Omit<InMemoryAgentOptions, "home" | "env"> = {}): Promise<{ pair: InMemoryAgent; sessionId: string }> {
  const pair = suite.connect(options);
  await pair.initialize();
  const { sessionId } = await pair.connection.agent.request(methods.agent.session.new, { cwd: suite.home.workspace, mcpServers: [] });
  return { pair, sessionId };
}

const prompt = (pair: InMemoryAgent, sessionId: string, text: string) =>
  pair.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });

type Sent = { role: string; tool_call_id?: string; content: string };
const toolResult = (id: string): unknown => JSON.parse((suite.llm.requests.at(-1)!.body.messages as Sent[]).find((message) => message.tool_call_id === id)!.content);
const offeredTools = (index: number): string[] => (suite.llm.requests[index]!.body.tools as Array<{ function: { name: string } }>).map((tool) => tool.function.name);

describe("clarify", () => {
  it("asks through the editor's form and returns the picked choice without its label", async () => {
    const asked: CreateElicitationRequest[] = [];
    const { pair, sessionId } = await session({
      clientCapabilities: { elicitation: { form: {} } },
      onElicitation: (request): CreateElicitationResponse => {
        asked.push(request);
        return { action: "accept", content: { q0: "Rebase onto main (Recommended)" } };
      },
    });
    suite.llm.push(
      { tool_calls: [{ id: "c1", name: "clarify", arguments: { question: "Merge or rebase?", choices: ["Rebase onto main", "Merge commit"] } }] },
      { text: "Rebasing." },
    );
    expect((await prompt(pair, sessionId, "update my branch")).stopReason).toBe("end_turn");
    expect(offeredTools(0)).toContain("clarify");
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ mode: "form", sessionId, toolCallId: "c1", message: "Merge or rebase?" });
    const field = (asked[0] as { requestedSchema: { properties: Record<string, { oneOf?: Array<{ const: string }> }> } }).requestedSchema.properties.q0!;
    expect(field.oneOf?.map((option) => option.const)).toEqual(["Rebase onto main (Recommended)", "Merge commit", "__other__"]);
    expect(toolResult("c1")).toEqual({ question: "Merge or rebase?", choices_offered: ["Rebase onto main", "Merge commit"], user_response: "Rebase onto main" });
    expect(schemaProblems(pair.frames)).toEqual([]);
  });

  it("takes typed text for Other, asks batches in one form, and tells the model to use its judgement when dismissed", async () => {
    let answer: CreateElicitationResponse = { action: "accept", content: { q0: "__other__", q0_other: "Squash it", q1: ["Unit"], q1_other: "Lint" } };
    const { pair, sessionId } = await session({ clientCapabilities: { elicitation: { form: {} } }, onElicitation: () => answer });
    suite.llm.push(
      {
        tool_calls: [
          {
            id: "b1",
            name: "clarify",
            arguments: { questions: [{ question: "How to merge?", choices: ["Rebase", "Merge"] }, { id: "checks", question: "Which checks?", choices: ["Unit", "E2E"], multi_select: true }] },
          },
        ],
      },
      { text: "ok" },
      { tool_calls: [{ id: "d1", name: "clarify", arguments: { question: "Which port?" } }] },
      { text: "ok" },
    );
    await prompt(pair, sessionId, "ship it");
    expect(toolResult("b1")).toEqual({
      responses: [
        { question: "How to merge?", choices_offered: ["Rebase", "Merge"], user_response: "Squash it" },
        { id: "checks", question: "Which checks?", choices_offered: ["Unit", "E2E"], user_response: ["Unit", "Lint"] },
      ],
    });
    answer = { action: "decline" };
    await prompt(pair, sessionId, "and the port?");
    expect(toolResult("d1")).toMatchObject({ question: "Which port?", user_response: expect.stringMatching(/best judgement/) });
  });

  it("checks the editor's answers against the form: picks outside the choices and values of the wrong type are ignored, long text is cut", async () => {
    const answers: unknown[] = [
      // single choice: not one of the choices, then a number, then a huge "Other"
      { action: "accept", content: { q0: "Drop the production database" } },
      { action: "accept", content: { q0: 42, injected: "ignored key" } },
      { action: "accept", content: { q0: "__other__", q0_other: "z".repeat(2_000_000) } },
      // multiple choice: thousands of picks nobody offered, and a bare string for the list
      { action: "accept", content: { q0: ["E2E", "E2E", ...Array.from({ length: 5000 }, (_, index) => `rm -rf /${index}`)] } },
      { action: "accept", content: { q0: "Unit" } },
    ];
    const { pair, sessionId } = await session({ clientCapabilities: { elicitation: { form: {} } }, onElicitation: () => answers.shift() as CreateElicitationResponse });
    const single = { question: "Which suite?", choices: ["Unit", "E2E"] };
    const multi = { ...single, multi_select: true };
    const results: unknown[] = [];
    for (const [index, args] of [single, single, single, multi, multi].entries()) {
      suite.llm.push({ tool_calls: [{ id: `c${index}`, name: "clarify", arguments: args }] }, { text: "ok" });
      await prompt(pair, sessionId, "run the tests");
      results.push(toolResult(`c${index}`));
    }
    const responses = results.map((result) => (result as { user_response: unknown }).user_response);
    expect(responses[0]).toMatch(/without answering/);
    expect(responses[1]).toMatch(/without answering/);
    expect(String(responses[2]).length).toBeLessThan(10_100);
    expect(String(responses[2])).toMatch(/^z+\n\[… cut: the answer was longer than 10000 characters\]$/);
    expect(responses[3]).toEqual(["E2E"]);
    expect(responses[4]).toEqual(["Unit"]);
  });

  it("is not offered to an editor without form elicitation, and /tools says why", async () => {
    const { pair, sessionId } = await session();
    suite.llm.push({ text: "hi" });
    await prompt(pair, sessionId, "hello");
    expect(offeredTools(0)).not.toContain("clarify");
    await prompt(pair, sessionId, "/tools");
    const text = pair.updates.flatMap((n) => (n.update.sessionUpdate === "agent_message_chunk" && n.update.content.type === "text" ? [n.update.content.text] : [])).join("");
    expect(text).toMatch(/clarify: the editor cannot show questions/);
  });
});
