import { linkSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { realOrResolved, secretFileReason, secretFiles } from "./secret-files.js";

let dir: string;
let home: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "hermes-secret-files-"));
  home = join(dir, "hermes-home");
  mkdirSync(join(home, "profiles", "work"), { recursive: true });
  writeFileSync(join(home, ".env"), "OPENROUTER_API_KEY=sk-or-v1-xxxxxxxxxxxxxxxx\n");
  writeFileSync(join(home, "auth.json"), "{}\n");
  writeFileSync(join(home, "profiles", "work", ".env"), "A=b\n");
  writeFileSync(join(home, "config.yaml"), "model: {}\n");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const onLinux = process.platform === "linux";

describe("secretFileReason", () => {
  it("refuses HERMES_HOME's credential files, also in profiles, and nothing else there", async () => {
    expect(await secretFileReason(join(home, ".env"), home)).toMatch(/holds Hermes credentials/);
    expect(await secretFileReason(join(home, "auth.json"), home)).toMatch(/credentials/);
    expect(await secretFileReason(join(home, ".anthropic_oauth.json"), home)).toMatch(/credentials/);
    expect(await secretFileReason(join(home, "profiles", "work", ".env"), home)).toMatch(/credentials/);
    expect(await secretFileReason(join(home, "config.yaml"), home)).toBeUndefined();
    expect(await secretFileReason(join(dir, "project", ".env"), home)).toBeUndefined();
  });

  it("sees through symbolic links, `..` and a symlinked home", async () => {
    symlinkSync(join(home, ".env"), join(dir, "innocent.txt"));
    symlinkSync(home, join(dir, "home-link"));
    mkdirSync(join(dir, "project"));
    expect(await secretFileReason(join(dir, "innocent.txt"), home)).toMatch(/credentials/);
    expect(await secretFileReason(join(dir, "home-link", ".env"), home)).toMatch(/credentials/);
    expect(await secretFileReason(join(dir, "project", "..", "hermes-home", ".env"), home)).toMatch(/credentials/);
    expect(await secretFileReason(join(home, ".env"), join(dir, "home-link"))).toMatch(/credentials/);
  });

  it("refuses another name of the same file (a hard link)", async () => {
    linkSync(join(home, ".env"), join(dir, "copy"));
    expect(await secretFileReason(join(dir, "copy"), home)).toMatch(/same file/);
  });

  it("refuses the file a symlinked credential file points to", async () => {
    const elsewhere = join(dir, "real-secrets");
    writeFileSync(elsewhere, "K=v\n");
    rmSync(join(home, "auth.json"));
    symlinkSync(elsewhere, join(home, "auth.json"));
    expect(await secretFileReason(elsewhere, home)).toMatch(/credentials/);
  });

  it.skipIf(!onLinux)("refuses every spelling of a process environment", async () => {
    const tid = readdirSync(`/proc/${process.pid}/task`)[0] as string;
    symlinkSync("/proc/self/environ", join(dir, "env-link"));
    for (const path of [
      "/proc/self/environ",
      "/proc/thread-self/environ",
      `/proc/${process.pid}/environ`,
      `/proc/${process.pid}/task/${tid}/environ`,
      "/proc/1/environ",
      "/proc/self/task/../environ",
      join(dir, "env-link"),
      "/proc/self/root/proc/self/environ",
    ]) {
      expect(await secretFileReason(path, home), path).toMatch(/process environment/);
    }
    expect(await secretFileReason("/proc/self/status", home)).toBeUndefined();
  });
});

describe("secretFiles", () => {
  it("tells whether a directory may hold secret files", async () => {
    const files = await secretFiles(home);
    mkdirSync(join(dir, "project"));
    expect(files.anyBelow(dir)).toBe(true);
    expect(files.anyBelow(home)).toBe(true);
    expect(files.anyBelow(join(dir, "project"))).toBe(false);
    expect(files.anyBelow("/proc")).toBe(true);
    expect(files.anyBelow("/")).toBe(true);
  });
});

describe("realOrResolved", () => {
  it("resolves the existing part of a path that does not exist", async () => {
    symlinkSync(home, join(dir, "home-link"));
    expect(await realOrResolved(join(dir, "home-link", "missing", "file"))).toBe(join(await realOrResolved(home), "missing", "file"));
  });
});
