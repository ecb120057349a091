import { existsSync, linkSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { editArea, editAutoApproved, hardLinkCount, isSensitivePath, realTarget, SESSION_MODES, type EditArea, type SessionMode } from "./edit-policy.js";

/** A throwaway tree with its own cwd, temp and home, so "outside" really is outside all three. */
const root = realpathSync(mkdtempSync(join(tmpdir(), "hermes-edit-policy-")));
const dir = (...parts: string[]): string => {
  const path = join(root, ...parts);
  mkdirSync(path, { recursive: true });
  return path;
};
const file = (path: string, text = "x\n"): string => {
  writeFileSync(path, text);
  return path;
};

const cwd = dir("project");
const temp = dir("temp");
const home = dir("home");
const outside = dir("outside");
const area: EditArea = { cwd, temp, home };
const AUTO_MODES: readonly SessionMode[] = ["accept_edits", "dont_ask"];
const ALL_MODES: readonly SessionMode[] = ["default", "accept_edits", "dont_ask", "plan"];

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("realTarget and hardLinkCount", () => {
  it("resolves symlinked files, symlinked folders and dangling symlinks to where the write lands", () => {
    const secret = file(join(outside, "secret.txt"));
    symlinkSync(secret, join(cwd, "file-link"));
    symlinkSync(outside, join(cwd, "dir-link"));
    symlinkSync(join(outside, "not-yet.txt"), join(cwd, "dangling"));
    symlinkSync(join(cwd, "dangling"), join(cwd, "chain"));
    expect(realTarget(join(cwd, "file-link"))).toBe(secret);
    expect(realTarget(join(cwd, "dir-link/new/deep.txt"))).toBe(join(outside, "new/deep.txt"));
    expect(realTarget(join(cwd, "dangling"))).toBe(join(outside, "not-yet.txt"));
    expect(realTarget(join(cwd, "chain"))).toBe(join(outside, "not-yet.txt"));
    expect(realTarget(join(cwd, "plain/new.ts"))).toBe(join(cwd, "plain/new.ts"));
  });

  it("applies a link target's .. to the real folder, as the kernel does (checked by really writing)", () => {
    mkdirSync(join(outside, "sub"), { recursive: true });
    symlinkSync(join(outside, "sub"), join(cwd, "d"));
    symlinkSync("d/../kernel-made.txt", join(cwd, "tricky"));
    expect(realTarget(join(cwd, "tricky"))).toBe(join(outside, "kernel-made.txt"));
    writeFileSync(join(cwd, "tricky"), "written\n");
    expect(existsSync(join(outside, "kernel-made.txt"))).toBe(true);
    expect(existsSync(join(cwd, "kernel-made.txt"))).toBe(false);
    expect(editAutoApproved("dont_ask", [join(cwd, "tricky")], cwd, [], area)).toBe(false);
  });

  it("ends a symlink loop without throwing", () => {
    symlinkSync(join(cwd, "loop-b"), join(cwd, "loop-a"));
    symlinkSync(join(cwd, "loop-a"), join(cwd, "loop-b"));
    expect(typeof realTarget(join(cwd, "loop-a"))).toBe("string");
  });

  it("counts hard links of regular files only, through symlinks", () => {
    const single = file(join(cwd, "single.txt"));
    const shared = file(join(outside, "shared.txt"));
    linkSync(shared, join(cwd, "shared-here.txt"));
    symlinkSync(join(cwd, "shared-here.txt"), join(cwd, "to-shared"));
    expect(hardLinkCount(single)).toBe(1);
    expect(hardLinkCount(join(cwd, "shared-here.txt"))).toBe(2);
    expect(hardLinkCount(join(cwd, "to-shared"))).toBe(2);
    expect(hardLinkCount(join(cwd, "missing.txt"))).toBe(0);
    expect(hardLinkCount(cwd)).toBe(0);
  });
});

describe("editAutoApproved: hard links count as outside, in every mode", () => {
  const target = file(join(outside, "authorized_keys_like.txt"));
  const inWorkspace = join(cwd, "innocent-notes.txt");
  linkSync(target, inWorkspace);
  const twin = file(join(cwd, "twin-a.txt"));
  linkSync(twin, join(cwd, "twin-b.txt"));
  const tempLinked = file(join(temp, "scratch-linked.txt"));
  linkSync(tempLinked, join(outside, "scratch-twin.txt"));

  it.each(ALL_MODES)("%s: a workspace file hard-linked to a file outside asks", (mode) => {
    expect(editAutoApproved(mode, [inWorkspace], cwd, [], area)).toBe(false);
  });

  it.each(AUTO_MODES)("%s: asks even when every link is inside the workspace, and in temp, and through a symlink", (mode) => {
    symlinkSync(inWorkspace, join(cwd, `${mode}-via-symlink`));
    expect(editAutoApproved(mode, [twin], cwd, [], area)).toBe(false);
    expect(editAutoApproved(mode, [tempLinked], cwd, [], area)).toBe(false);
    expect(editAutoApproved(mode, [join(cwd, `${mode}-via-symlink`)], cwd, [], area)).toBe(false);
    expect(editAutoApproved(mode, [file(join(cwd, `${mode}-plain.txt`)), inWorkspace], cwd, [], area)).toBe(false);
  });
});

describe("editAutoApproved: the project area", () => {
  symlinkSync(join(outside, "escape.txt"), join(cwd, "escape-link"));
  symlinkSync(outside, join(cwd, "escape-dir"));
  symlinkSync(join(outside, "created-by-write.txt"), join(cwd, "escape-dangling"));

  it.each(AUTO_MODES)("%s: auto-approves new and existing files in the workspace and the temp dir", (mode) => {
    expect(editAutoApproved(mode, [join(cwd, "src/new.ts")], cwd, [], area)).toBe(true);
    expect(editAutoApproved(mode, [file(join(cwd, `${mode}-existing.ts`))], cwd, [], area)).toBe(true);
    expect(editAutoApproved(mode, [join(temp, "scratch.txt")], cwd, [], area)).toBe(true);
  });

  it.each(AUTO_MODES)("%s: asks outside the workspace and temp: /etc, ~/.gitconfig, siblings, home files", (mode) => {
    for (const path of ["/etc/hosts", "/etc/new.conf", "/usr/local/bin/tool", join(outside, "x.txt"), join(root, "sibling.txt"), join(home, "notes.txt"), join(home, ".gitconfig")]) {
      expect(editAutoApproved(mode, [path], cwd, [], area), path).toBe(false);
    }
  });

  it.each(AUTO_MODES)("%s: a symlink inside the workspace that points outside is outside (file, folder, dangling)", (mode) => {
    expect(editAutoApproved(mode, [join(cwd, "escape-link")], cwd, [], area)).toBe(false);
    expect(editAutoApproved(mode, [join(cwd, "escape-dir/new.txt")], cwd, [], area)).toBe(false);
    expect(editAutoApproved(mode, [join(cwd, "escape-dangling")], cwd, [], area)).toBe(false);
  });

  it.each(AUTO_MODES)("%s: a move needs both ends inside", (mode) => {
    expect(editAutoApproved(mode, [join(cwd, "b.ts"), join(cwd, "a.ts")], cwd, [], area)).toBe(true);
    expect(editAutoApproved(mode, [join(cwd, "b.ts"), join(outside, "a.ts")], cwd, [], area)).toBe(false);
  });

  it("never auto-approves in default or plan, or with nothing to approve", () => {
    expect(editAutoApproved("default", [join(cwd, "a.ts")], cwd, [], area)).toBe(false);
    expect(editAutoApproved("plan", [join(cwd, "a.ts")], cwd, [], area)).toBe(false);
    expect(editAutoApproved("dont_ask", [], cwd, [], area)).toBe(false);
  });

  it("uses the real temp dir by default", () => {
    expect(editArea(cwd).temp).toBe(realpathSync(tmpdir()));
  });
});

describe("editAutoApproved: a HOME inside the temp dir (as in tests)", () => {
  const tmpRoot = dir("tmp-with-home");
  const tmpHome = dir("tmp-with-home", "home");
  const hermesHome = dir("tmp-with-home", "home", ".hermes");
  const project = dir("tmp-with-home", "home", "project");
  const homeArea: EditArea = { cwd: project, temp: tmpRoot, home: tmpHome };

  it.each(AUTO_MODES)("%s: home files and dotfiles ask, the project and the rest of temp do not", (mode) => {
    expect(editAutoApproved(mode, [join(project, "a.ts")], project, [hermesHome], homeArea)).toBe(true);
    expect(editAutoApproved(mode, [join(tmpRoot, "scratch.txt")], project, [hermesHome], homeArea)).toBe(true);
    for (const path of [join(tmpHome, "notes.txt"), join(tmpHome, ".gitconfig"), join(tmpHome, ".bashrc"), join(tmpHome, ".config/autostart/x.desktop"), join(hermesHome, "config.yaml")]) {
      expect(editAutoApproved(mode, [path], project, [hermesHome], homeArea), path).toBe(false);
    }
  });

  it("treats HOME equal to the temp dir as home, not temp", () => {
    const same: EditArea = { cwd: project, temp: tmpHome, home: tmpHome };
    expect(editAutoApproved("dont_ask", [join(tmpHome, "notes.txt")], project, [], same)).toBe(false);
    expect(editAutoApproved("dont_ask", [join(project, "a.ts")], project, [], same)).toBe(true);
  });
});

describe("editAutoApproved: home dot entries when the workspace is the home directory", () => {
  const userHome = dir("user-home");
  const nvim = dir("user-home", ".config", "nvim");

  it("asks for ~/.config, ~/.local and home dotfiles even with cwd = ~", () => {
    const homeArea: EditArea = { cwd: userHome, temp, home: userHome };
    expect(editAutoApproved("dont_ask", [join(userHome, "src/a.ts")], userHome, [], homeArea)).toBe(true);
    for (const path of [join(userHome, ".config/autostart/x.desktop"), join(userHome, ".local/bin/ls"), join(userHome, ".vimrc"), join(userHome, ".bashrc")]) {
      expect(editAutoApproved("dont_ask", [path], userHome, [], homeArea), path).toBe(false);
    }
  });

  it("lets a project opened inside a dot folder (~/.config/nvim) own its files", () => {
    const homeArea: EditArea = { cwd: nvim, temp, home: userHome };
    expect(editAutoApproved("accept_edits", [join(nvim, "init.lua")], nvim, [], homeArea)).toBe(true);
    expect(editAutoApproved("accept_edits", [join(userHome, ".config/fish/config.fish")], nvim, [], homeArea)).toBe(false);
  });
});

describe("isSensitivePath", () => {
  it("covers git config, git credentials and cloud / container credential stores", () => {
    for (const path of [
      "/home/u/.gitconfig",
      "/home/u/.git-credentials",
      "/home/u/.kube/config",
      "/home/u/.docker/config.json",
      "/home/u/.config/gcloud/credentials.db",
      "/home/u/.config/gh/hosts.yml",
      "/home/u/.config/git/config",
      "/home/u/.azure/accessTokens.json",
      "/home/u/.pgpass",
      "/home/u/.zshenv",
    ]) {
      expect(isSensitivePath(path), path).toBe(true);
    }
    expect(isSensitivePath("/home/u/project/docker/config.json")).toBe(false);
    expect(isSensitivePath("/home/u/project/src/git.ts")).toBe(false);
  });

  it("checks the real target: a symlink to ~/.gitconfig is sensitive", () => {
    const gitconfig = file(join(home, ".gitconfig"));
    symlinkSync(gitconfig, join(cwd, "harmless.cfg"));
    expect(isSensitivePath(join(cwd, "harmless.cfg"))).toBe(true);
  });
});

describe("SESSION_MODES", () => {
  it("describes dont_ask truthfully: the same project-only policy as accept_edits", () => {
    const dontAsk = SESSION_MODES.find((mode) => mode.id === "dont_ask");
    expect(dontAsk?.description).toContain("same as Accept Edits");
    expect(dontAsk?.description).toContain("outside still ask");
    expect(SESSION_MODES.find((mode) => mode.id === "accept_edits")?.description).toContain("hard-linked");
  });
});
