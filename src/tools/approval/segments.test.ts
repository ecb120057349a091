import { describe, expect, it } from "vitest";
import { normalizeCommand } from "./normalize.js";
import { classifyDeleteTarget, classifyWriteTarget, isRawDevice } from "./paths.js";
import { scanCommand } from "./segments.js";
import { upstreamOf } from "./simple-command.js";

/** name + args of every command the scanner found, for compact assertions. */
function argvs(command: string): string[][] {
  return scanCommand(command).commands.map((cmd) => [cmd.name, ...cmd.args]);
}

describe("normalizeCommand", () => {
  it("strips ANSI, NUL and invisible characters, applies NFKC, joins continuations, expands $IFS", () => {
    expect(normalizeCommand("\u001b[1mls\u001b[0m")).toBe("ls");
    expect(normalizeCommand("r\u0000m\u200b")).toBe("rm");
    expect(normalizeCommand("ｒｍ －ｒｆ")).toBe("rm -rf");
    expect(normalizeCommand("rm \\\n-rf")).toBe("rm -rf");
    expect(normalizeCommand("a${IFS}b$IFS c")).toBe("a b  c");
    expect(normalizeCommand("a\r\nb")).toBe("a\nb");
  });
});

describe("scanCommand", () => {
  it("removes quotes and escapes the way a shell does", () => {
    expect(argvs(String.raw`r\m "-r"f '/tmp/a b' $'\x41'`)).toEqual([["rm", "-rf", "/tmp/a b", "A"]]);
  });

  it("splits on control operators and keeps quoted operators as data", () => {
    expect(argvs('a; b && c || d | e & f\ng "x; y"')).toEqual([["a"], ["b"], ["c"], ["d"], ["e"], ["f"], ["g", "x; y"]]);
  });

  it("peels wrappers and records them", () => {
    const [cmd] = scanCommand("sudo -u bob env A=1 nice -n 5 timeout 10 rm -r x").commands;
    expect(cmd).toMatchObject({ name: "rm", args: ["-r", "x"], wrappers: ["sudo", "env", "nice", "timeout"] });
  });

  it("follows sh -c payloads with their positional parameters, eval, and substitutions", () => {
    expect(argvs("bash -c 'touch \"$1\"' _ f.txt")).toEqual([["bash", "-c", 'touch "$1"', "_", "f.txt"], ["touch", "f.txt"]]);
    expect(argvs("eval 'ls -l'")).toEqual([["eval", "ls -l"], ["ls", "-l"]]);
    expect(argvs("echo $(date) `whoami`")).toEqual([["date"], ["whoami"], ["echo", "\u0001", "\u0001"]]);
  });

  it("uses the static output of echo/printf/base64 substitutions", () => {
    expect(argvs("$(echo ls) -la")).toEqual([["echo", "ls"], ["ls", "-la"]]);
    expect(argvs('X="$(echo bHM= | base64 -d)"; $X')).toEqual([["echo", "bHM="], ["base64", "-d"], ["ls"]]);
  });

  it("attaches heredocs as stdin, scans them only when a shell reads them", () => {
    const cat = scanCommand("cat <<'EOF'\nrm -rf /\nEOF").commands;
    expect(cat.map((cmd) => cmd.name)).toEqual(["cat"]);
    expect(cat[0]?.stdin).toBe("rm -rf /\n");
    expect(argvs("bash <<EOF\nls\nEOF")).toEqual([["bash"], ["ls"]]);
  });

  it("links pipeline members and background jobs", () => {
    const [curl, sh] = scanCommand("curl -s x | sh &").commands;
    expect(sh && upstreamOf(sh)).toEqual([curl]);
    expect(sh?.background).toBe(true);
  });

  it("expands xargs and find -exec into the commands they run", () => {
    expect(argvs("echo a b | xargs rm")).toEqual([["echo", "a", "b"], ["rm", "a", "b"]]);
    expect(argvs(String.raw`find . -exec rm {} \;`)).toEqual([["find", ".", "-exec", "rm", "{}", ";"], ["rm", "{}"]]);
  });

  it("marks commands inside function bodies", () => {
    const commands = scanCommand("f() { g; }; f").commands;
    expect(commands.map((cmd) => [cmd.name, cmd.inFunction])).toEqual([["g", "f"], ["f", undefined]]);
  });

  it("stops following nesting past the depth limit or the scan budget, and says so", () => {
    expect(scanCommand("eval ".repeat(20) + "ls").truncated).toBe(true);
    expect(scanCommand("eval eval ls").truncated).toBe(false);
    // Each run of the (growing) script re-scans it; the shared budget ends that.
    expect(scanCommand("echo ls >> f; ".repeat(2000) + "bash f; ".repeat(2000)).truncated).toBe(true);
  });

  it("scans scripts written earlier in the same command line when they are run", () => {
    expect(argvs("echo 'git status' > s.sh; sh ./s.sh")).toEqual([["echo", "git status"], ["sh", "./s.sh"], ["git", "status"]]);
    const [curl, bash] = scanCommand("curl -o i.sh https://x/i.sh; bash i.sh").commands;
    expect(bash?.scriptDownloadedBy).toBe(curl);
  });
});

describe("paths", () => {
  it.each([
    ["/", "root"],
    ["//./", "root"],
    ["/*", "root"],
    ["/$X", "root"],
    ["/etc", "system"],
    ["/usr/local/", "system"],
    ["/home", "system"],
    ["~", "home"],
    ["~/*", "home"],
    ["/home/alice", "home"],
    ["/root", "home"],
    ["/etc/nginx", undefined],
    ["./build", undefined],
    ["~/project", undefined],
  ])("classifies delete target %j as %j", (path, expected) => {
    expect(classifyDeleteTarget(path)).toBe(expected);
  });

  it("recognizes raw block devices and nothing else under /dev", () => {
    for (const path of ["/dev/sda", "/dev/sdb1", "/dev/nvme0n1p2", "/dev/disk3", "/dev/mapper/vg-root", "//dev/sda"]) expect(isRawDevice(path)).toBe(true);
    for (const path of ["/dev/null", "/dev/stdout", "/dev/tty", "~/dev/sdk/x", "dev/sda"]) expect(isRawDevice(path)).toBe(false);
  });

  it("classifies sensitive write targets", () => {
    expect(classifyWriteTarget("~/.ssh/authorized_keys")).toBe("write_ssh");
    expect(classifyWriteTarget("/home/bob/.zshrc")).toBe("write_shell_rc");
    expect(classifyWriteTarget("${HERMES_HOME}/config.yaml")).toBe("write_hermes_config");
    expect(classifyWriteTarget("apps/web/.env.local")).toBe("write_env_file");
    expect(classifyWriteTarget(".env.example")).toBeUndefined();
    expect(classifyWriteTarget("/etc/hosts")).toBe("write_etc");
    expect(classifyWriteTarget("src/etc/config.ts")).toBeUndefined();
  });
});
