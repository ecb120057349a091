import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildSystemPrompt } from "../agent/system-prompt.js";
import { discoverProjectContext, findGitRoot, stripFrontmatter } from "./project-context.js";
import { buildSessionSystemPrompt, projectContextCap, storedPromptFits } from "./session-prompt.js";

let root: string;
let repo: string;
let cwd: string;

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "hermes-ctx-"));
  repo = join(root, "repo");
  cwd = join(repo, "packages", "web");
  mkdirSync(join(repo, ".git"), { recursive: true });
  mkdirSync(cwd, { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("findGitRoot", () => {
  it("finds the nearest .git folder or file above the cwd", async () => {
    expect(await findGitRoot(cwd)).toBe(repo);
    write(join(cwd, ".git"), "gitdir: /elsewhere\n");
    expect(await findGitRoot(cwd)).toBe(cwd);
  });
});

describe("discoverProjectContext", () => {
  it("finds nothing in an empty project", async () => {
    expect(await discoverProjectContext(cwd)).toBeUndefined();
  });

  it(".hermes.md wins over everything, nearest first, with frontmatter stripped", async () => {
    write(join(repo, "HERMES.md"), "root hermes");
    write(join(repo, "packages", ".hermes.md"), "---\ntitle: x\ntags: [a]\n---\n\nNearest hermes rules\n");
    write(join(repo, "AGENTS.md"), "agents");
    write(join(cwd, "CLAUDE.md"), "claude");
    write(join(cwd, ".cursorrules"), "cursor");
    const found = await discoverProjectContext(cwd);
    expect(found?.kind).toBe("hermes");
    expect(found?.files).toEqual([{ label: "packages/.hermes.md", path: join(repo, "packages", ".hermes.md"), content: "Nearest hermes rules\n" }]);
  });

  it("does not look for HERMES.md above the git root", async () => {
    write(join(root, "HERMES.md"), "outside the repo");
    expect(await discoverProjectContext(cwd)).toBeUndefined();
  });

  it("looks only in the cwd when there is no git root", async () => {
    rmSync(join(repo, ".git"), { recursive: true });
    write(join(repo, "HERMES.md"), "parent");
    write(join(repo, "AGENTS.md"), "parent agents");
    expect(await discoverProjectContext(cwd)).toBeUndefined();
    write(join(cwd, "AGENTS.md"), "here");
    expect((await discoverProjectContext(cwd))?.files).toEqual([{ label: "AGENTS.md", path: join(cwd, "AGENTS.md"), content: "here" }]);
  });

  it("loads the AGENTS.md chain from the git root down to the cwd, override first, each its own section", async () => {
    write(join(repo, "AGENTS.md"), "root agents");
    write(join(repo, "packages", "agents.md"), "packages agents (lower case)");
    write(join(cwd, "AGENTS.md"), "web agents");
    write(join(cwd, "AGENTS.override.md"), "web override");
    write(join(cwd, "CLAUDE.md"), "claude");
    const found = await discoverProjectContext(cwd);
    expect(found?.kind).toBe("agents");
    expect(found?.files.map((file) => [file.label, file.content])).toEqual([
      ["AGENTS.md", "root agents"],
      ["packages/agents.md", "packages agents (lower case)"],
      ["packages/web/AGENTS.override.md", "web override"],
    ]);
    const prompt = buildSystemPrompt({ cwd, model: "m", provider: "p", startedAt: new Date(0), projectContext: found?.files ?? [] });
    expect(prompt).toContain("# Project Context\n\nThe following project context files have been loaded and should be followed:\n\n## AGENTS.md\n\nroot agents\n\n## packages/agents.md");
  });

  it("loads a file reached twice through a link once", async () => {
    write(join(repo, "AGENTS.md"), "shared");
    symlinkSync(join(repo, "AGENTS.md"), join(cwd, "AGENTS.md"));
    expect((await discoverProjectContext(cwd))?.files.map((file) => file.label)).toEqual(["AGENTS.md"]);
  });

  it("falls back to CLAUDE.md in the cwd only, then to cursor rules", async () => {
    write(join(repo, "CLAUDE.md"), "root claude is not read");
    write(join(cwd, ".cursorrules"), "cursor rules");
    write(join(cwd, ".cursor", "rules", "b.mdc"), "rule b");
    write(join(cwd, ".cursor", "rules", "a.mdc"), "rule a");
    write(join(cwd, ".cursor", "rules", "notes.txt"), "not a rule");
    const cursor = await discoverProjectContext(cwd);
    expect(cursor?.kind).toBe("cursor");
    expect(cursor?.files.map((file) => file.label)).toEqual(["packages/web/.cursorrules", "packages/web/.cursor/rules/a.mdc", "packages/web/.cursor/rules/b.mdc"]);

    write(join(cwd, "claude.md"), "web claude");
    const claude = await discoverProjectContext(cwd);
    expect(claude).toEqual({ kind: "claude", files: [{ label: "packages/web/claude.md", path: join(cwd, "claude.md"), content: "web claude" }] });
  });

  it("treats blank files and folders with context names as absent", async () => {
    write(join(repo, "HERMES.md"), "  \n\n");
    mkdirSync(join(cwd, "AGENTS.md"));
    write(join(cwd, "CLAUDE.md"), "claude");
    expect((await discoverProjectContext(cwd))?.kind).toBe("claude");
  });
});

describe("stripFrontmatter", () => {
  it("removes only a leading YAML block", () => {
    expect(stripFrontmatter("---\na: 1\n---\nbody")).toBe("body");
    expect(stripFrontmatter("body\n---\na: 1\n---\n")).toBe("body\n---\na: 1\n---\n");
    expect(stripFrontmatter("no frontmatter")).toBe("no frontmatter");
  });
});

describe("buildSessionSystemPrompt", () => {
  const input = () => ({ soulFile: join(root, "home", "SOUL.md"), cwd, model: "test-model", provider: "custom", startedAt: new Date("2025-01-02T03:04:05Z"), contextWindow: 128_000 });

  it("builds the same bytes twice from the same folder, and reads SOUL.md", async () => {
    write(join(repo, "AGENTS.md"), "x".repeat(50_000));
    write(join(root, "home", "SOUL.md"), "You are a careful pair programmer.");
    const first = await buildSessionSystemPrompt(input());
    const second = await buildSessionSystemPrompt(input());
    expect(Buffer.from(first).equals(Buffer.from(second))).toBe(true);
    expect(first.startsWith("You are a careful pair programmer.")).toBe(true);
    expect(first).toContain(`Use read_file on ${join(repo, "AGENTS.md")} to read the full file.`);
    expect(first).toContain(`Working directory: ${cwd}`);
    expect(first).toContain("Shell: bash");
    expect(first).toMatch(/Operating system: .+/);
    expect(storedPromptFits(first, "test-model", "custom")).toBe(true);
    expect(storedPromptFits(first, "other-model", "custom")).toBe(false);
  });

  it("caps project context at 20,000 chars, less for small windows", () => {
    expect(projectContextCap(128_000)).toBe(20_000);
    expect(projectContextCap(8_192)).toBe(3_276);
    expect(projectContextCap(1_000)).toBe(2_000);
  });
});
