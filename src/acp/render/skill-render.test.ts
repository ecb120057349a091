import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { toolContext } from "../../../test/support/tool-context.js";
import { toolEndEvent, toolStartEvent } from "../../agent/events.js";
import type { ToolCall } from "../../llm/types.js";
import { prepareToolCall, type PreparedToolCall } from "../../tools/prepared-call.js";
import { ToolRegistry } from "../../tools/registry.js";
import { skillManageTool } from "../../tools/skills/skill-manage.js";
import { skillViewTool } from "../../tools/skills/skill-view.js";
import { skillsListTool } from "../../tools/skills/skills-list.js";
import { toolEndUpdate, toolStartUpdate } from "../tool-render.js";

/** The skill tools in the editor: real calls on a temp home, rendered through the dispatcher. */
const TOOLS = new ToolRegistry([skillsListTool, skillViewTool, skillManageTool]);
let home: string;

const prepared = (name: string, args: unknown): PreparedToolCall => {
  const call: ToolCall = { id: "c1", type: "function", function: { name, arguments: JSON.stringify(args) } };
  return prepareToolCall(call, TOOLS, { cwd: "/w" });
};

async function run(name: string, args: unknown) {
  const call = prepared(name, args);
  const tool = TOOLS.get(name)!;
  const result = await tool.execute(call.args as never, toolContext({ hermesHome: home, cwd: home }));
  return {
    start: toolStartUpdate(toolStartEvent(call)) as unknown as Record<string, unknown>,
    end: toolEndUpdate(toolEndEvent(call, { content: result.content, isError: result.isError ?? false, details: result.details })) as unknown as Record<string, unknown>,
  };
}

const SKILL_MD = "---\nname: deploy\ndescription: Ship it.\n---\n# Deploy\n\nRun make deploy.\n";

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "hermes-skill-render-"));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

describe("skill tool rendering", () => {
  it("skill_manage: an edit titled by action and name, completed with a diff old → new and the file as location", async () => {
    const created = await run("skill_manage", { action: "create", name: "deploy", category: "devops", content: SKILL_MD });
    expect(created.start).toMatchObject({ title: "skill_manage: create deploy", kind: "edit", status: "in_progress" });
    const file = join(home, "skills", "devops", "deploy", "SKILL.md");
    expect(created.end).toMatchObject({
      status: "completed",
      content: [{ type: "content" }, { type: "diff", path: file, oldText: null, newText: SKILL_MD }],
      locations: [{ path: file }],
    });
    const patched = await run("skill_manage", { action: "patch", name: "deploy", old_string: "Run make deploy.", new_string: "Run make deploy ENV=prod." });
    expect(patched.end).toMatchObject({ content: [{ type: "content" }, { type: "diff", oldText: SKILL_MD, newText: SKILL_MD.replace("deploy.\n", "deploy ENV=prod.\n") }] });
    const refused = await run("skill_manage", { action: "create", name: "Bad Name", content: SKILL_MD });
    expect(refused.end).toMatchObject({ status: "failed" });
  });

  it("skill_view: a read titled by the skill, completed with its text and the resolved file as location", async () => {
    mkdirSync(join(home, "skills", "deploy"), { recursive: true });
    writeFileSync(join(home, "skills", "deploy", "SKILL.md"), SKILL_MD);
    const viewed = await run("skill_view", { name: "deploy" });
    expect(viewed.start).toMatchObject({ title: "skill: deploy", kind: "read", content: [] });
    expect(viewed.end).toMatchObject({ status: "completed", locations: [{ path: join(home, "skills", "deploy", "SKILL.md") }] });
    expect(JSON.stringify(viewed.end)).toContain("Run make deploy.");
    const refused = await run("skill_view", { name: "../../.env" });
    expect(refused.end).toMatchObject({ status: "failed" });
    expect(JSON.stringify(refused.end)).toContain("path traversal");

    const listed = await run("skills_list", {});
    expect(listed.start).toMatchObject({ title: "skills: list", kind: "read" });
    expect(JSON.stringify(listed.end)).toContain("**deploy** — Ship it.");
  });
});
