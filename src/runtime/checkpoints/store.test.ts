import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { configSchema } from "../../config/schema.js";
import { git } from "./git.js";
import { SessionCheckpoints } from "./session-checkpoints.js";
import { CheckpointChanged, CheckpointStore } from "./store.js";

const MB = 1024 * 1024;
const LIMITS = { maxSnapshots: 20, maxTotalBytes: 500 * MB, maxFileBytes: 10 * MB };

let root: string;
let home: string;
let workspace: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "hermes-checkpoints-")));
  home = join(root, "home");
  workspace = join(root, "workspace");
  mkdirSync(home);
  mkdirSync(workspace);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function store(limits = LIMITS): CheckpointStore {
  return new CheckpointStore(join(home, "checkpoints"), limits);
}

function write(path: string, text: string): void {
  mkdirSync(join(workspace, path, ".."), { recursive: true });
  writeFileSync(join(workspace, path), text);
}

function read(path: string): string | undefined {
  return existsSync(join(workspace, path)) ? readFileSync(join(workspace, path), "utf8") : undefined;
}

async function filesOf(checkpoints: CheckpointStore, hash: string): Promise<string[]> {
  return (await git(["ls-tree", "-r", "--name-only", hash], { store: checkpoints.store })).split("\n").filter(Boolean);
}

describe("CheckpointStore", () => {
  it("keeps Hermes' layout under $HERMES_HOME/checkpoints and restores changed, created and deleted files", async () => {
    const checkpoints = store();
    write("a.txt", "alpha\n");
    write("src/b.txt", "beta\n");
    write("gone.txt", "keep me\n");
    expect(await checkpoints.take(workspace, "write_file: a.txt")).toBe("taken");
    const hash16 = CheckpointStore.workspaceHash(workspace);
    expect(existsSync(join(home, "checkpoints", "store", "refs", "hermes", hash16))).toBe(true);
    expect(JSON.parse(readFileSync(join(home, "checkpoints", "store", "projects", `${hash16}.json`), "utf8")).workdir).toBe(workspace);
    expect(existsSync(join(workspace, ".git"))).toBe(false);

    write("a.txt", "alpha 2\n");
    write("src/new/c.txt", "created by the agent\n");
    unlinkSync(join(workspace, "gone.txt"));
    const [checkpoint] = await checkpoints.list(workspace);
    expect(checkpoint!.reason).toBe("write_file: a.txt");
    const preview = await checkpoints.preview(workspace, checkpoint!.hash);
    expect(preview.map(({ path, kind }) => [path, kind])).toEqual([
      ["a.txt", "restored"],
      ["gone.txt", "created"],
      ["src/new/c.txt", "deleted"],
    ]);
    expect(preview[0]!.current!.toString()).toBe("alpha 2\n");
    expect(preview[0]!.restored!.toString()).toBe("alpha\n");
    expect(read("a.txt")).toBe("alpha 2\n");

    const done = await checkpoints.restore(workspace, checkpoint!);
    expect(done.changes).toHaveLength(3);
    expect(read("a.txt")).toBe("alpha\n");
    expect(read("gone.txt")).toBe("keep me\n");
    expect(read("src/new/c.txt")).toBeUndefined();
    expect(existsSync(join(workspace, "src", "new"))).toBe(false);
    expect(read("src/b.txt")).toBe("beta\n");
    const [undo] = await checkpoints.list(workspace);
    expect(undo!.reason).toBe(`pre-rollback snapshot (restoring to ${checkpoint!.short})`);
    await checkpoints.restore(workspace, undo!);
    expect(read("a.txt")).toBe("alpha 2\n");
    expect(read("src/new/c.txt")).toBe("created by the agent\n");
  });

  it("takes nothing when the workspace did not change since the last snapshot", async () => {
    const checkpoints = store();
    write("a.txt", "alpha\n");
    expect(await checkpoints.take(workspace, "one")).toBe("taken");
    expect(await checkpoints.take(workspace, "two")).toBe("unchanged");
    expect(await checkpoints.list(workspace)).toHaveLength(1);
  });

  it("keeps at most 20 snapshots per workspace, dropping the oldest", async () => {
    const checkpoints = store();
    for (let i = 0; i < 21; i++) {
      write("a.txt", `version ${i}\n`);
      expect(await checkpoints.take(workspace, `edit ${i}`)).toBe("taken");
    }
    const list = await checkpoints.list(workspace);
    expect(list).toHaveLength(20);
    expect(list[0]!.reason).toBe("edit 20");
    expect(list.at(-1)!.reason).toBe("edit 1");
    const history = await git(["rev-list", `refs/hermes/${CheckpointStore.workspaceHash(workspace)}`], { store: checkpoints.store });
    expect(history.split("\n")).toHaveLength(20);
    write("a.txt", "later\n");
    await checkpoints.restore(workspace, list.at(-1)!);
    expect(read("a.txt")).toBe("version 1\n");
  });

  it("skips files over 10 MB, and never deletes one on restore", async () => {
    const checkpoints = store();
    write("small.txt", "small\n");
    writeFileSync(join(workspace, "big.bin"), Buffer.alloc(10 * MB + 1, 1));
    await checkpoints.take(workspace, "first");
    const [first] = await checkpoints.list(workspace);
    expect(await filesOf(checkpoints, first!.hash)).toEqual(["small.txt"]);
    expect(await checkpoints.preview(workspace, first!.hash)).toEqual([]);
    write("small.txt", "changed\n");
    await checkpoints.restore(workspace, first!);
    expect(read("small.txt")).toBe("small\n");
    expect(existsSync(join(workspace, "big.bin"))).toBe(true);
  });

  it("leaves out dependencies, build output, .git and what the workspace's .gitignore ignores", async () => {
    const checkpoints = store();
    write("a.txt", "alpha\n");
    write("node_modules/pkg/index.js", "module\n");
    write("dist/out.js", "built\n");
    write(".git/config", "[core]\n");
    write(".gitignore", "secret-notes.md\n");
    write("secret-notes.md", "ignored\n");
    await checkpoints.take(workspace, "first");
    const [first] = await checkpoints.list(workspace);
    expect(await filesOf(checkpoints, first!.hash)).toEqual([".gitignore", "a.txt"]);
  });

  it("stores symlinks as links and never writes through one out of the workspace", async () => {
    const checkpoints = store();
    const outside = join(root, "outside");
    mkdirSync(outside);
    writeFileSync(join(outside, "f.txt"), "outside\n");
    symlinkSync(outside, join(workspace, "link"));
    write("a.txt", "alpha\n");
    await checkpoints.take(workspace, "first");
    const [first] = await checkpoints.list(workspace);
    expect(await filesOf(checkpoints, first!.hash)).toEqual(["a.txt", "link"]);
    writeFileSync(join(outside, "f.txt"), "changed outside\n");
    write("a.txt", "alpha 2\n");
    await checkpoints.restore(workspace, first!);
    expect(readFileSync(join(outside, "f.txt"), "utf8")).toBe("changed outside\n");
    expect(read("a.txt")).toBe("alpha\n");
  });
});

describe("CheckpointStore against a hostile workspace", () => {
  it("never runs an embedded repository's configuration (fsmonitor) and keeps no gitlinks", async () => {
    const checkpoints = store();
    const ran = join(root, "ran");
    execFileSync("git", ["init", "-q", join(workspace, "sub")]);
    write("sub/f.txt", "inner\n");
    execFileSync("git", ["-C", join(workspace, "sub"), "add", "f.txt"]);
    execFileSync("git", ["-C", join(workspace, "sub"), "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qm", "x"]);
    execFileSync("git", ["-C", join(workspace, "sub"), "config", "core.fsmonitor", `touch ${ran}`]);
    write("a.txt", "alpha\n");
    await checkpoints.take(workspace, "one");
    write("a.txt", "alpha 2\n");
    await checkpoints.take(workspace, "two");
    const [latest] = await checkpoints.list(workspace);
    expect(existsSync(ran)).toBe(false);
    expect(await filesOf(checkpoints, latest!.hash)).toEqual(["a.txt"]);
  });

  it("stores files byte for byte whatever the workspace's .gitattributes say", async () => {
    const checkpoints = store();
    write(".gitattributes", "*.txt text eol=lf\n*.id ident\n");
    write("crlf.txt", "a\r\nb\r\n");
    write("x.id", "$Id$\n");
    await checkpoints.take(workspace, "one");
    const [first] = await checkpoints.list(workspace);
    write("crlf.txt", "changed\r\n");
    write("x.id", "changed\n");
    await checkpoints.restore(workspace, first!);
    expect(read("crlf.txt")).toBe("a\r\nb\r\n");
    expect(read("x.id")).toBe("$Id$\n");
  });

  it("keeps credential files out of snapshots", async () => {
    const checkpoints = store();
    for (const path of ["a.txt", "id_rsa", "id_ed25519.pub", ".ssh/config", ".aws/credentials", "server.pem", "tls.key", ".npmrc", ".netrc", ".envrc", "prod.env", ".git-credentials", ".pgpass"]) write(path, "x\n");
    await checkpoints.take(workspace, "one");
    const [first] = await checkpoints.list(workspace);
    expect(await filesOf(checkpoints, first!.hash)).toEqual(["a.txt"]);
  });

  it("recovers from a git killed mid-snapshot (stale locks) and from a corrupt index", async () => {
    const checkpoints = store();
    write("a.txt", "alpha\n");
    await checkpoints.take(workspace, "one");
    const index = join(checkpoints.store, "indexes", CheckpointStore.workspaceHash(workspace));
    writeFileSync(`${index}.lock`, "");
    writeFileSync(join(checkpoints.store, "refs", "hermes", `${CheckpointStore.workspaceHash(workspace)}.lock`), "");
    write("a.txt", "alpha 2\n");
    expect(await checkpoints.take(workspace, "two")).toBe("taken");
    writeFileSync(index, "garbage");
    write("a.txt", "alpha 3\n");
    expect(await checkpoints.take(workspace, "three")).toBe("taken");
    expect((await checkpoints.list(workspace)).map((checkpoint) => checkpoint.reason)).toEqual(["three", "two", "one"]);
  });

  it("never overwrites a file it could not snapshot first (grown over the size limit)", async () => {
    const checkpoints = store({ ...LIMITS, maxFileBytes: 100 });
    write("a.txt", "small\n");
    await checkpoints.take(workspace, "one");
    const [first] = await checkpoints.list(workspace);
    write("a.txt", "x".repeat(500));
    expect(await checkpoints.preview(workspace, first!.hash)).toEqual([]);
    const done = await checkpoints.restore(workspace, first!, []);
    expect(done.changes).toEqual([]);
    expect(done.skipped).toEqual([expect.stringMatching(/^a\.txt \(/)]);
    expect(read("a.txt")).toBe("x".repeat(500));
  });

  it("restores nothing when the files changed after the preview the user confirmed", async () => {
    const checkpoints = store();
    write("a.txt", "alpha\n");
    await checkpoints.take(workspace, "one");
    const [first] = await checkpoints.list(workspace);
    write("a.txt", "alpha 2\n");
    const preview = await checkpoints.preview(workspace, first!.hash);
    write("mine.txt", "the user's new file\n");
    await expect(checkpoints.restore(workspace, first!, preview)).rejects.toBeInstanceOf(CheckpointChanged);
    expect(read("mine.txt")).toBe("the user's new file\n");
    expect(read("a.txt")).toBe("alpha 2\n");
  });

  it("shows a symlink's target in the preview, never what it points to", async () => {
    const checkpoints = store();
    write("a.txt", "alpha\n");
    await checkpoints.take(workspace, "one");
    const [first] = await checkpoints.list(workspace);
    unlinkSync(join(workspace, "a.txt"));
    symlinkSync("/dev/zero", join(workspace, "a.txt"));
    const [change] = await checkpoints.preview(workspace, first!.hash);
    expect(change!.current!.toString()).toBe("/dev/zero");
  });
});

describe("SessionCheckpoints", () => {
  const config = (enabled: boolean) => configSchema.parse({ checkpoints: { enabled } });

  it("is off by default: no port, nothing under $HERMES_HOME/checkpoints", () => {
    const checkpoints = new SessionCheckpoints({ hermesHome: home, cwd: workspace, config: configSchema.parse({}) });
    expect(checkpoints.enabled).toBe(false);
    expect(checkpoints.turnPorts(() => undefined)).toEqual({});
    expect(existsSync(join(home, "checkpoints"))).toBe(false);
  });

  it("takes one snapshot per turn, naming the tool and files", async () => {
    const checkpoints = new SessionCheckpoints({ hermesHome: home, cwd: workspace, config: config(true) });
    write("a.txt", "alpha\n");
    const turn = checkpoints.turnPorts(undefined).checkpoint!;
    await turn({ toolName: "write_file", paths: [join(workspace, "a.txt"), join(root, "elsewhere.txt")] }, new AbortController().signal);
    write("a.txt", "alpha 2\n");
    await turn({ toolName: "patch", paths: [join(workspace, "a.txt")] }, new AbortController().signal);
    expect((await checkpoints.list()).map((checkpoint) => checkpoint.reason)).toEqual(["write_file: a.txt"]);
    await checkpoints.turnPorts(undefined).checkpoint!({ toolName: "patch", paths: [join(workspace, "a.txt")] }, new AbortController().signal);
    expect((await checkpoints.list()).map((checkpoint) => checkpoint.reason)).toEqual(["patch: a.txt", "write_file: a.txt"]);
  });

  it("resolves when the checkpoints folder cannot be written, telling the user once", async () => {
    writeFileSync(join(home, "checkpoints"), "not a folder");
    const checkpoints = new SessionCheckpoints({ hermesHome: home, cwd: workspace, config: config(true) });
    write("a.txt", "alpha\n");
    const told: string[] = [];
    for (let turn = 0; turn < 2; turn++) {
      await checkpoints.turnPorts((text) => told.push(text)).checkpoint!({ toolName: "write_file", paths: [join(workspace, "a.txt")] }, new AbortController().signal);
    }
    expect(told).toHaveLength(1);
    expect(told[0]).toMatch(/^⚠ Checkpoints are unavailable: .+\. Edits go on without them; \/rollback cannot undo them\.$/);
  });
});
