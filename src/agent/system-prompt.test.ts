import { describe, expect, it } from "vitest";
import { buildSystemPrompt, DEFAULT_IDENTITY, renderProjectContext, type SystemPromptInput } from "./system-prompt.js";

const BASE: SystemPromptInput = {
  cwd: "/work/project",
  model: "anthropic/claude-sonnet-4",
  provider: "openrouter",
  startedAt: new Date("2025-03-04T05:06:07Z"),
  os: "Linux 6.8.0 (linux)",
  shell: "bash",
};

describe("buildSystemPrompt", () => {
  it("is identity, guidance, project context, then the environment, ending with Model and Provider", () => {
    const prompt = buildSystemPrompt({ ...BASE, projectContext: [{ label: "AGENTS.md", path: "/work/project/AGENTS.md", content: "Use pnpm." }] });
    const order = [DEFAULT_IDENTITY, "# Using tools", "# Project Context", "## AGENTS.md\n\nUse pnpm.", "# Environment"].map((part) => prompt.indexOf(part));
    expect(order.every((index) => index >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(prompt).toContain("The following project context files have been loaded and should be followed:");
    expect(prompt).toContain("Prefer the file tools");
    expect(prompt).toContain("Batch independent reads");
    expect(prompt).toContain("Verify your work");
    expect(prompt.endsWith(
      "# Environment\nOperating system: Linux 6.8.0 (linux)\nShell: bash\nWorking directory: /work/project\nConversation started: 2025-03-04\nModel: anthropic/claude-sonnet-4\nProvider: openrouter",
    )).toBe(true);
  });

  it("gives the same bytes for the same input", () => {
    const input = { ...BASE, identity: "You are Soul.", projectContext: [{ label: "HERMES.md", path: "/p/HERMES.md", content: "x".repeat(30_000) }] };
    expect(Buffer.from(buildSystemPrompt(input))).toEqual(Buffer.from(buildSystemPrompt(structuredClone(input))));
  });

  it("uses SOUL.md's text instead of the default identity, and the default for a blank one", () => {
    expect(buildSystemPrompt({ ...BASE, identity: "You are Soul.\n" }).startsWith("You are Soul.\n\n# Using tools")).toBe(true);
    expect(buildSystemPrompt({ ...BASE, identity: "  \n" }).startsWith(DEFAULT_IDENTITY)).toBe(true);
  });

  it("adds tool-use enforcement for model families that need it", () => {
    expect(buildSystemPrompt({ ...BASE, model: "openai/gpt-4.1" })).toContain("# Tool-use enforcement");
    expect(buildSystemPrompt({ ...BASE, model: "qwen3-coder" })).toContain("You MUST use your tools");
    expect(buildSystemPrompt(BASE)).not.toContain("# Tool-use enforcement");
  });

  it("leaves the project context section out without files", () => {
    expect(buildSystemPrompt(BASE)).not.toContain("# Project Context");
    expect(renderProjectContext([{ label: "AGENTS.md", path: "/a", content: " \n" }])).toBe("");
  });
});

describe("renderProjectContext caps", () => {
  it("keeps head and tail of a long file with a marker naming the file to read_file", () => {
    const content = `HEAD-START ${"a".repeat(30_000)} ${"b".repeat(10_000)} TAIL-END`;
    const section = renderProjectContext([{ label: "AGENTS.md", path: "/repo/AGENTS.md", content }], 20_000);
    expect(section.length).toBeLessThan(20_500);
    expect(section).toContain("HEAD-START");
    expect(section).toContain("TAIL-END");
    expect(section).toMatch(/\[\.\.\.truncated AGENTS\.md: kept 14000\+4000 of \d+ chars\. Use read_file on \/repo\/AGENTS\.md to read the full file\.\]/);
  });

  it("shares the cap between files: small ones whole, large ones cut", () => {
    const files = [
      { label: "AGENTS.md", path: "/r/AGENTS.md", content: "root rules" },
      { label: "a/AGENTS.md", path: "/r/a/AGENTS.md", content: "A".repeat(15_000) },
      { label: "a/b/AGENTS.md", path: "/r/a/b/AGENTS.md", content: "B".repeat(15_000) },
    ];
    const section = renderProjectContext(files, 20_000);
    expect(section).toContain("## AGENTS.md\n\nroot rules");
    expect(section).toContain("truncated a/AGENTS.md");
    expect(section).toContain("truncated a/b/AGENTS.md");
    expect(section.length).toBeLessThan(20_500);
    expect(section.indexOf("## a/AGENTS.md")).toBeLessThan(section.indexOf("## a/b/AGENTS.md"));
  });

  it("keeps everything under the cap untouched", () => {
    const section = renderProjectContext([{ label: "CLAUDE.md", path: "/r/CLAUDE.md", content: "c".repeat(19_000) }], 20_000);
    expect(section).not.toContain("truncated");
  });
});
