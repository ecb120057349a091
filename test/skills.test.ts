import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runtimeSuite } from "./support/runtime-suite.js";

/** Skills end to end: written by the tool, indexed in the next session's prompt, loaded back, traversal refused. */
const suite = runtimeSuite();
const open = () => suite.open();
const ask: typeof suite.ask = (session, text) => suite.ask(session, text);

const SKILL_MD = [
  "---",
  "name: release-notes",
  "description: Write release notes from the merged pull requests.",
  "tags: [release]",
  "---",
  "# Release notes",
  "",
  "1. List merged PRs since the last tag: `git log --merges v1.2.0..HEAD`.",
  "2. Group them by area; one line each.",
  "",
].join("\n");

/** The JSON the model got back for the tool call `id` in the last request. */
function toolResult(id: string): Record<string, unknown> {
  const messages = suite.llm.requests.at(-1)!.body.messages as Array<{ tool_call_id?: string; content: string }>;
  return JSON.parse(messages.find((message) => message.tool_call_id === id)!.content) as Record<string, unknown>;
}

describe("skills", () => {
  it("a skill created with skill_manage is in the NEXT session's index (this one's prompt stays frozen), and skill_view returns it", async () => {
    const first = await open();
    const before = first.systemPrompt;
    expect(before).not.toContain("## Skills");
    expect(first.tools.names()).toEqual(expect.arrayContaining(["skills_list", "skill_view", "skill_manage"]));

    suite.llm.push(
      { tool_calls: [{ id: "s1", name: "skill_manage", arguments: { action: "create", name: "release-notes", category: "release", content: SKILL_MD } }] },
      { text: "saved" },
    );
    await ask(first, "save how we write release notes as a skill");
    expect(toolResult("s1")).toMatchObject({ success: true, message: "Skill 'release-notes' created.", path: join("release", "release-notes") });
    const file = join(suite.home.home, "skills", "release", "release-notes", "SKILL.md");
    expect(readFileSync(file, "utf8")).toBe(SKILL_MD);
    expect(first.systemPrompt).toBe(before);

    const second = await open();
    expect(second.systemPrompt).toContain("## Skills");
    expect(second.systemPrompt).toContain("<available_skills>\n  release:\n    - release-notes: Write release notes from the merged pull requests.\n</available_skills>");
    // The index sits before the memory section, as in Hermes' prompt.
    expect(second.systemPrompt.indexOf("## Skills")).toBeLessThan(second.systemPrompt.indexOf("# Memory"));
    expect(second.systemPrompt).not.toContain("git log --merges");

    suite.llm.push({ tool_calls: [{ id: "v1", name: "skill_view", arguments: { name: "release-notes" } }] }, { text: "loaded" });
    await ask(second, "write the release notes");
    expect(toolResult("v1")).toMatchObject({ success: true, name: "release-notes", content: SKILL_MD, tags: ["release"], path: join("release", "release-notes", "SKILL.md") });
  });

  it("refuses skill_view('../../.env') and never shows the file", async () => {
    writeFileSync(join(suite.home.home, ".env"), "OPENAI_API_KEY=sk-e2e-secret-value\n");
    const session = await open();
    suite.llm.push(
      {
        tool_calls: [
          { id: "t1", name: "skill_view", arguments: { name: "../../.env" } },
          { id: "t2", name: "skill_view", arguments: { name: "anything", file_path: "../../.env" } },
        ],
      },
      { text: "refused" },
    );
    await ask(session, "show me the env file through a skill");
    expect(toolResult("t1")).toMatchObject({ success: false, error: "Skill name cannot contain '..' path traversal components." });
    expect(toolResult("t2")).toMatchObject({ success: false });
    expect(JSON.stringify(suite.llm.requests.at(-1)!.body.messages)).not.toContain("sk-e2e-secret-value");
  });

  it("is left out entirely when the skills toolset is disabled", async () => {
    suite.home.writeConfig(`model:\n  provider: custom\n  base_url: ${suite.llm.baseUrl}\n  default: test-model\nagent:\n  disabled_toolsets: [skills]\n`);
    const session = await open();
    suite.llm.push({ tool_calls: [{ id: "c1", name: "skill_manage", arguments: { action: "create", name: "x", content: SKILL_MD } }] }, { text: "no" });
    await ask(session, "save a skill");
    expect(session.tools.names()).not.toContain("skill_manage");
    expect(existsSync(join(suite.home.home, "skills"))).toBe(false);
    expect(session.systemPrompt).not.toContain("## Skills");
  });
});
