import { linkSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { toolContext } from "../../../test/support/tool-context.js";
import { configSchema } from "../../config/schema.js";
import type { ToolContext } from "../types.js";
import { skillViewTool } from "./skill-view.js";

let root: string;
let home: string;
let deploy: string;

const SKILL_MD = "---\nname: deploy\ndescription: Ship the service.\ntags: [ops, release]\nrelated_skills: rollback\n---\n# Deploy\n\n1. Run `make deploy`.\n";

function ctx(skills: Record<string, unknown> = {}): ToolContext {
  return toolContext({ hermesHome: home, cwd: root, config: configSchema.parse({ skills }) });
}

async function view(args: { name: string; file_path?: string }, context = ctx()) {
  const result = await skillViewTool.execute(args, context);
  return { ...result, json: JSON.parse(result.content) as Record<string, unknown> };
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "hermes-skill-view-"));
  home = join(root, "home");
  deploy = join(home, "skills", "devops", "deploy");
  mkdirSync(join(deploy, "references"), { recursive: true });
  mkdirSync(join(deploy, "scripts"), { recursive: true });
  writeFileSync(join(deploy, "SKILL.md"), SKILL_MD);
  writeFileSync(join(deploy, "references", "api.md"), "# API\nPOST /deploy\n");
  writeFileSync(join(deploy, "scripts", "check.sh"), "#!/bin/sh\nexit 0\n");
  writeFileSync(join(home, ".env"), "OPENAI_API_KEY=sk-test-secret\n");
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("skill_view", () => {
  it("returns the whole SKILL.md with tags, related skills and linked files, in Hermes' shape", async () => {
    const result = await view({ name: "deploy" });
    expect(result.isError).toBeUndefined();
    expect(result.json).toMatchObject({
      success: true,
      name: "deploy",
      description: "Ship the service.",
      tags: ["ops", "release"],
      related_skills: ["rollback"],
      content: SKILL_MD,
      path: join("devops", "deploy", "SKILL.md"),
      skill_dir: deploy,
      linked_files: { references: ["references/api.md"], scripts: ["scripts/check.sh"] },
      usage_hint: expect.stringContaining("skill_view(name, file_path)"),
    });
    expect(result.details).toEqual({ name: "deploy", path: join(deploy, "SKILL.md"), content: SKILL_MD });
    // By its categorized path too.
    expect((await view({ name: "devops/deploy" })).json).toMatchObject({ success: true, name: "deploy" });
  });

  it("returns one linked file", async () => {
    const result = await view({ name: "deploy", file_path: "references/api.md" });
    expect(result.json).toEqual({ success: true, name: "deploy", file: "references/api.md", content: "# API\nPOST /deploy\n", file_type: ".md" });
    expect(result.details).toMatchObject({ path: join(deploy, "references", "api.md"), file: "references/api.md" });
  });

  it("lists the skill's files when a linked file is missing", async () => {
    const result = await view({ name: "deploy", file_path: "references/nope.md" });
    expect(result.isError).toBe(true);
    expect(result.json).toMatchObject({
      success: false,
      error: "File 'references/nope.md' not found in skill 'deploy'.",
      available_files: { references: ["references/api.md"], scripts: ["scripts/check.sh"] },
    });
  });

  it("refuses traversal in the name and in file_path, absolute paths, and links out of the skill folder", async () => {
    expect((await view({ name: "../../.env" })).json).toMatchObject({ success: false, error: "Skill name cannot contain '..' path traversal components." });
    expect((await view({ name: "/etc/passwd" })).json).toMatchObject({ success: false, error: "Skill name must be a relative path within the skills directory." });
    expect((await view({ name: "deploy", file_path: "../../../.env" })).json).toMatchObject({ success: false, error: "Path traversal ('..') is not allowed." });
    expect((await view({ name: "deploy", file_path: "/etc/passwd" })).json).toMatchObject({ success: false, error: expect.stringMatching(/^Path escapes allowed directory/) });
    symlinkSync(join(home, ".env"), join(deploy, "references", "env.md"));
    symlinkSync(root, join(deploy, "assets"));
    for (const file_path of ["references/env.md", "assets/home/.env"]) {
      const result = await view({ name: "deploy", file_path });
      expect(result.isError, file_path).toBe(true);
      expect(result.json.error, file_path).toMatch(/^Path escapes allowed directory/);
      expect(result.content).not.toContain("sk-test-secret");
    }
  });

  it("refuses a hard link to a HERMES_HOME credential file inside the skill", async () => {
    linkSync(join(home, ".env"), join(deploy, "references", "creds.md"));
    const result = await view({ name: "deploy", file_path: "references/creds.md" });
    expect(result.isError).toBe(true);
    expect(result.content).not.toContain("sk-test-secret");
  });

  it("answers a missing skill with the available ones, and refuses disabled ones and other platforms", async () => {
    expect((await view({ name: "nope" })).json).toMatchObject({ success: false, error: "Skill 'nope' not found.", available_skills: ["deploy"] });
    expect((await view({ name: "deploy" }, ctx({ disabled: ["deploy"] }))).json).toMatchObject({ success: false, error: expect.stringMatching(/^Skill 'deploy' is disabled/) });
    const other = process.platform === "win32" ? "linux" : "windows";
    mkdirSync(join(home, "skills", "winonly"));
    writeFileSync(join(home, "skills", "winonly", "SKILL.md"), `---\nname: winonly\ndescription: W.\nplatforms: [${other}]\n---\nBody.\n`);
    expect((await view({ name: "winonly" })).json).toMatchObject({ success: false, readiness_status: "unsupported" });
  });

  it("refuses to guess between same-named skills of home and an external folder", async () => {
    const external = join(root, "team");
    mkdirSync(join(external, "deploy"), { recursive: true });
    writeFileSync(join(external, "deploy", "SKILL.md"), "---\nname: deploy\ndescription: Team.\n---\nBody.\n");
    const result = await view({ name: "deploy" }, ctx({ external_dirs: [external] }));
    expect(result.json).toMatchObject({ success: false, error: expect.stringMatching(/^Ambiguous skill name 'deploy'/) });
    expect((result.json.matches as string[]).length).toBe(2);
    expect((await view({ name: "devops/deploy" }, ctx({ external_dirs: [external] }))).json).toMatchObject({ success: true });
  });

  it("falls back from plugin:skill to the plugin/skill path (no plugins here)", async () => {
    mkdirSync(join(home, "skills", "superpowers", "plans"), { recursive: true });
    writeFileSync(join(home, "skills", "superpowers", "plans", "SKILL.md"), "---\nname: plans\ndescription: P.\n---\nBody.\n");
    expect((await view({ name: "superpowers:plans" })).json).toMatchObject({ success: true, name: "plans" });
    expect((await view({ name: "bad ns:plans" })).json).toMatchObject({ success: false, error: expect.stringMatching(/^Invalid namespace/) });
  });
});

describe("skill_view and credential files reached through SKILL.md", () => {
  it("refuses a SKILL.md or flat <name>.md that is a link or a hard link to a credential file", async () => {
    mkdirSync(join(home, "skills", "envy"), { recursive: true });
    symlinkSync(join(home, ".env"), join(home, "skills", "envy", "SKILL.md"));
    symlinkSync(join(home, ".env"), join(home, "skills", "flat.md"));
    mkdirSync(join(home, "skills", "hard"), { recursive: true });
    linkSync(join(home, ".env"), join(home, "skills", "hard", "SKILL.md"));
    for (const name of ["envy", "flat", "hard"]) {
      const result = await view({ name });
      expect(result.isError, name).toBe(true);
      expect(result.json.error, name).toMatch(/^Refusing to show skill '.*': .* holds Hermes credentials/);
      expect(result.content, name).not.toContain("sk-test-secret");
    }
  });

  it("does not serve a SKILL.md inside another skill's support folder as a skill", async () => {
    writeFileSync(join(deploy, "references", "SKILL.md"), "---\nname: inner\ndescription: d\n---\nBody.\n");
    expect((await view({ name: "devops/deploy/references" })).json).toMatchObject({ success: false, error: "Skill 'devops/deploy/references' not found." });
  });
});
