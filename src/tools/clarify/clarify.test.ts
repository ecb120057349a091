import { describe, expect, it } from "vitest";
import { defaultConfig } from "../../config/schema.js";
import { toolContext } from "../../../test/support/tool-context.js";
import { clarifyTool, normalize, TIMEOUT_RESPONSE } from "./clarify.js";

const run = (args: Parameters<typeof clarifyTool.execute>[0], ctx = toolContext()) => clarifyTool.execute(args, ctx);

describe("clarify", () => {
  it("answers Hermes' timeout text when nobody answers within approvals.timeout", async () => {
    const config = { ...defaultConfig(), approvals: { ...defaultConfig().approvals, timeout: 1 } };
    const ctx = toolContext({ config, ports: { askUser: (_request, signal) => new Promise((_resolve, reject) => signal.addEventListener("abort", () => reject(signal.reason))) } });
    const result = await run({ question: "Which port?", choices: ["3000", "8080"] }, ctx);
    expect(JSON.parse(result.content)).toEqual({ question: "Which port?", choices_offered: ["3000", "8080"], user_response: TIMEOUT_RESPONSE });
  });

  it("waits for an answer when approvals.timeout is longer than a timer can count", async () => {
    const config = { ...defaultConfig(), approvals: { ...defaultConfig().approvals, timeout: 10_000_000 } };
    const askUser = (_request: unknown, signal: AbortSignal) =>
      new Promise<{ outcome: "answered"; answers: Record<string, string> }>((resolve, reject) =>
        setTimeout(() => (signal.aborted ? reject(signal.reason) : resolve({ outcome: "answered", answers: { q0: "8080" } })), 20),
      );
    const result = await run({ question: "Which port?", choices: ["3000", "8080"] }, toolContext({ config, ports: { askUser } }));
    expect(JSON.parse(result.content)).toMatchObject({ user_response: "8080" });
  });

  it("stops at once when the turn is cancelled", async () => {
    const controller = new AbortController();
    const ctx = toolContext({ signal: controller.signal, ports: { askUser: (_request, signal) => new Promise((_resolve, reject) => signal.addEventListener("abort", () => reject(signal.reason))) } });
    const pending = run({ question: "Which port?" }, ctx);
    controller.abort();
    expect(await pending).toMatchObject({ isError: true });
  });

  it("validates like Hermes: limits, object-shaped choices, the recommended label, an empty question", () => {
    const [only] = normalize({ question: " Pick ", choices: [{ label: "A" }, '{"text":"B"}', "C", "D", "E"] }) as Exclude<ReturnType<typeof normalize>, string>;
    expect(only).toMatchObject({ question: "Pick", offered: ["A", "B", "C", "D"], choices: ["A (Recommended)", "B", "C", "D"] });
    expect(normalize({ questions: Array.from({ length: 6 }, (_, i) => `q${i}?`) })).toMatch(/at most 5/);
    expect(normalize({ question: "  " })).toBe("question is required.");
    expect(normalize({ question: "Only one?", choices: ["yes"] })).toMatchObject([{ choices: ["yes"], multiSelect: false }]);
  });

  it("says the editor cannot ask without the port", async () => {
    expect(await run({ question: "?" })).toMatchObject({ isError: true, content: expect.stringMatching(/cannot show questions/) });
  });
});
