import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultConfig } from "../../../config/schema.js";
import { bwrapArgs } from "./bwrap.js";
import { planSandbox, type SandboxMount } from "./policy.js";
import { seatbeltProfile } from "./seatbelt.js";
import { sandboxSettings } from "./settings.js";

const root = realpathSync(mkdtempSync(join(tmpdir(), "sandbox-policy-")));
const home = join(root, "home");
const hermesHome = join(home, ".hermes");
const cwd = join(home, "work", "app");
for (const dir of [join(home, ".ssh"), hermesHome, join(cwd, ".git", "hooks"), join(home, ".cargo", "registry")]) mkdirSync(dir, { recursive: true });
writeFileSync(join(hermesHome, ".env"), "A=1\n");
writeFileSync(join(cwd, ".git", "config"), "");
writeFileSync(join(home, ".netrc"), "");

const settings = (readOnly = false) => sandboxSettings(defaultConfig(), readOnly);
const access = (mounts: SandboxMount[], path: string) => mounts.filter((mount) => mount.path === path).map((mount) => mount.access);

describe("sandbox plan", () => {
  it("layers writable roots over a read-only home, then read-only and hidden paths inside them", () => {
    const plan = planSandbox({ settings: settings(), cwd, hermesHome, home, tmp: root })!;
    const paths = plan.mounts.map((mount) => mount.path);
    expect(access(plan.mounts, root)).toEqual(["writable"]);
    expect(access(plan.mounts, home)).toEqual(["read-only"]);
    expect(access(plan.mounts, cwd)).toEqual(["writable"]);
    expect(access(plan.mounts, join(home, ".cargo", "registry"))).toEqual(["writable"]);
    expect(access(plan.mounts, join(cwd, ".git", "hooks"))).toEqual(["read-only"]);
    expect(access(plan.mounts, join(cwd, ".git", "config"))).toEqual(["read-only"]);
    expect(access(plan.mounts, hermesHome)).toEqual(["read-only"]);
    expect(access(plan.mounts, join(hermesHome, ".env"))).toEqual(["hidden"]);
    expect(access(plan.mounts, join(home, ".ssh"))).toEqual(["hidden"]);
    expect(access(plan.mounts, join(home, ".netrc"))).toEqual(["hidden"]);
    // Shallowest first, so deeper mounts land on top.
    expect(paths.indexOf(home)).toBeLessThan(paths.indexOf(cwd));
    expect(paths.indexOf(cwd)).toBeLessThan(paths.indexOf(join(cwd, ".git", "hooks")));
    // Missing credential stores are left out (nothing to hide; the read-only home keeps them from appearing).
    expect(paths).not.toContain(join(home, ".aws"));
    // The two caches a fresh machine needs are created.
    expect(access(plan.mounts, join(home, ".npm"))).toEqual(["writable"]);
  });

  it("makes only temp writable in read-only mode, and nothing in off mode", () => {
    const plan = planSandbox({ settings: settings(true), cwd, hermesHome, home, tmp: root })!;
    expect(plan.mode).toBe("read-only");
    const writable = plan.mounts.filter((mount) => mount.access === "writable").map((mount) => mount.path);
    expect(writable.every((path) => [root, "/tmp", "/var/tmp", "/dev/shm"].includes(path))).toBe(true);
    expect(writable).toContain(root);
    // The workspace lies inside temp here: it is mounted read-only on top.
    expect(access(plan.mounts, cwd)).toEqual(["read-only"]);
    const config = defaultConfig();
    config.sandbox.mode = "off";
    expect(planSandbox({ settings: sandboxSettings(config, false), cwd, hermesHome, home })).toBeUndefined();
    expect(sandboxSettings(config, true).mode).toBe("off");
  });

  it("keeps HERMES_HOME read-only even when it is the workspace, and the home's dotfiles when the home is", () => {
    expect(access(planSandbox({ settings: settings(), cwd: hermesHome, hermesHome, home, tmp: root })!.mounts, hermesHome)).toEqual(["read-only"]);
    writeFileSync(join(home, ".bashrc"), "");
    const atHome = planSandbox({ settings: settings(), cwd: home, hermesHome, home, tmp: root })!.mounts;
    expect(access(atHome, home)).toEqual(["writable"]);
    expect(access(atHome, join(home, ".bashrc"))).toEqual(["read-only"]);
    expect(access(atHome, join(home, ".cargo", "registry"))).toEqual(["writable"]);
    expect(access(atHome, join(home, ".npm"))).toEqual(["writable"]);
  });

  it("adds config's deny_read and writable_roots, and the call's own paths", () => {
    const config = defaultConfig();
    config.sandbox.deny_read = ["~/work"];
    config.sandbox.writable_roots = ["~/.cargo/registry"];
    const state = join(root, "shell-state");
    mkdirSync(join(state, "call-1"), { recursive: true });
    const plan = planSandbox({ settings: sandboxSettings(config, false), cwd, hermesHome, home, tmp: root, callReadOnly: [state], callWritable: [join(state, "call-1")] })!;
    expect(access(plan.mounts, join(home, "work"))).toEqual(["hidden"]);
    // Nothing beneath a hidden folder is mounted: the workspace inside it stays hidden.
    expect(access(plan.mounts, cwd)).toEqual([]);
    expect(access(plan.mounts, state)).toEqual(["read-only"]);
    expect(access(plan.mounts, join(state, "call-1"))).toEqual(["writable"]);
  });
});

describe("bwrap invocation", () => {
  it("starts read-only with fresh /dev and /proc, a PID namespace, no capabilities, and dies with the agent", () => {
    const plan = planSandbox({ settings: settings(), cwd, hermesHome, home, tmp: root })!;
    const args = bwrapArgs(plan, { file: "bash", args: ["-c", "true"], cwd }, "/stubs/stub-file");
    expect(args.slice(0, 3)).toEqual(["--ro-bind", "/", "/"]);
    for (const flag of ["--unshare-pid", "--die-with-parent"]) expect(args).toContain(flag);
    // A group kill must reach the sandbox's init (see bwrapArgs).
    expect(args).not.toContain("--new-session");
    expect(args).not.toContain("--unshare-net");
    expect(args.join(" ")).toContain("--cap-drop ALL");
    expect(args.join(" ")).toContain(`--ro-bind /stubs/stub-file ${join(hermesHome, ".env")}`);
    expect(args.join(" ")).toContain(`--perms 0000 --tmpfs ${join(home, ".ssh")} --remount-ro ${join(home, ".ssh")}`);
    expect(args.join(" ")).toContain("--ro-bind-try /proc/sys /proc/sys");
    expect(args.join(" ")).toContain(`--bind ${cwd} ${cwd}`);
    expect(args.slice(-6)).toEqual(["--chdir", cwd, "--", "bash", "-c", "true"]);
    const cut = bwrapArgs({ ...plan, network: false }, { file: "true", args: [], cwd }, "/s/f");
    expect(cut).toContain("--unshare-net");
  });
});

describe("Seatbelt profile (macOS; checked here as text)", () => {
  const plan = planSandbox({ settings: settings(), cwd, hermesHome, home, tmp: root })!;
  const profile = seatbeltProfile(plan);

  it("denies by default and allows reads everywhere but the hidden paths", () => {
    expect(profile.startsWith("(version 1)\n(deny default)\n")).toBe(true);
    const reads = profile.split("\n").find((line) => line.startsWith("(allow file-read*"))!;
    expect(reads).toContain(`(require-not (subpath "${join(hermesHome, ".env")}"))`);
    expect(reads).toContain(`(require-not (subpath "${join(home, ".ssh")}"))`);
  });

  it("allows writes per writable root, excluding the read-only paths inside it", () => {
    const lines = profile.split("\n").filter((line) => line.startsWith("(allow file-write* "));
    const cwdRule = lines.find((line) => line.includes(`(subpath "${cwd}")`))!;
    expect(cwdRule).toContain(`(require-not (subpath "${join(cwd, ".git", "hooks")}"))`);
    expect(cwdRule).toContain(`(require-not (subpath "${join(cwd, ".git", "config")}"))`);
    const tempRule = lines.find((line) => line.includes(`(require-all (subpath "${root}")`))!;
    expect(tempRule).toContain(`(require-not (subpath "${home}"))`);
    expect(tempRule).toContain(`(require-not (subpath "${hermesHome}"))`);
    expect(profile).toContain("(allow network*)");
    expect(seatbeltProfile({ ...plan, network: false })).not.toContain("(allow network*)\n");
  });

  it("quotes paths so a crafted folder name cannot end the string", () => {
    const odd = seatbeltProfile({ mode: "workspace-write", network: true, writable: [], mounts: [{ path: '/tmp/a") (allow file-write* (subpath "/', access: "writable" }] });
    expect(odd).toContain('(subpath "/tmp/a\\") (allow file-write* (subpath \\"/")');
  });
});
