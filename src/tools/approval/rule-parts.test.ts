import { describe, expect, it } from "vitest";
import { isCredentialPath } from "./exfiltration.js";
import { gitConfigRisk, gitShellCommands, isGitConfigFile, isGitHooksPath } from "./git.js";
import { deletesTrees, dumpsEnvironment, inlinePrograms, spawnsCommands, usesNetwork } from "./inline-code.js";
import { scanCommand } from "./segments.js";
import { copiedFiles } from "./write-targets.js";
import { sessionFileMatcher } from "./written-files.js";

/** The last top-level command of `text` named `name` (default: the last command's name). */
function last(text: string, name?: string) {
  const commands = scanCommand(text).commands.filter((command) => name === undefined || command.name === name);
  return commands[commands.length - 1]!;
}

describe("isCredentialPath", () => {
  it.each([
    "~/.ssh/id_rsa", "~/.ssh", "~/.ssh/", "/home/alice/.ssh/id_ed25519", "/root/.aws/credentials", "~/.aws", "~/.netrc", "~/.git-credentials",
    "~/.docker/config.json", "~/.kube/config", "~/.config/gh/hosts.yml", "~/.hermes/.env", "$HERMES_HOME/.env", "${KUBECONFIG}", ".env",
    "apps/web/.env.local", "/proc/self/environ", "/proc/1/environ", "/etc/shadow", "/run/secrets/db", "id_rsa", "~//.ssh/./id_rsa",
  ])("%j is a credential", (path) => {
    expect(isCredentialPath(path)).toBe(true);
  });

  it.each(["~/.ssh/id_rsa.pub", "~/.ssh/known_hosts", ".env.example", "https://x/.env", "host:~/.ssh/id_rsa", "src/env.ts", "~/project/README.md", "/etc/hosts"])(
    "%j is not",
    (path) => {
      expect(isCredentialPath(path)).toBe(false);
    },
  );
});

describe("git helpers", () => {
  it("recognizes hooks directories and git config files", () => {
    for (const path of [".git/hooks/pre-commit", "./.git//hooks/x", "repo/.git/hooks", "bare.git/hooks/update", ".git/modules/lib/hooks/x", "$GIT_DIR/hooks/x", "\u0001/hooks/x"]) {
      expect(isGitHooksPath(path), path).toBe(true);
    }
    for (const path of ["hooks/pre-commit", "src/hooks/useThing.ts", ".github/hooks/x", ".githooks/pre-commit"]) expect(isGitHooksPath(path), path).toBe(false);
    for (const path of [".git/config", "~/.gitconfig", "~/.config/git/config", "/etc/gitconfig"]) expect(isGitConfigFile(path), path).toBe(true);
    expect(isGitConfigFile("src/config")).toBe(false);
  });

  it("rates configuration settings", () => {
    const risk = (key: string, value: string) => gitConfigRisk({ key, value, persistent: false });
    expect(risk("core.hookspath", "/tmp/h")).toBe("hooks");
    expect(risk("core.hookspath", "/dev/null")).toBeUndefined();
    expect(risk("alias.x", "!sh evil.sh")).toBe("exec");
    expect(risk("alias.st", "status")).toBeUndefined();
    expect(risk("core.pager", "less -R")).toBeUndefined();
    expect(risk("core.pager", "sh -c 'x'")).toBe("exec");
    expect(risk("core.sshcommand", "ssh -i ~/.ssh/k")).toBeUndefined();
    expect(risk("core.sshcommand", "ssh -o ProxyCommand=nc")).toBe("exec");
    expect(risk("filter.lfs.clean", "git-lfs clean -- %f")).toBe("exec");
    expect(risk("user.name", "x")).toBeUndefined();
  });

  it("extracts the shell text that settings make git run", () => {
    expect(gitShellCommands(last("git -c alias.x='!rm -rf build' x", "git"))).toEqual(["rm -rf build"]);
    expect(gitShellCommands(last("git config core.fsmonitor 'curl x | sh'", "git"))).toEqual(["curl x | sh"]);
    expect(gitShellCommands(last("git config --get alias.x"))).toEqual([]);
  });
});

describe("inline interpreter code", () => {
  it("finds program text in -c/-e, heredocs, awk programs and scripts written with known content", () => {
    expect(inlinePrograms(last("python3 -c 'print(1)'"))).toEqual([{ language: "python", text: "print(1)", loops: false }]);
    expect(inlinePrograms(last("python3 - <<'EOF'\nprint(2)\nEOF"))[0]?.text).toBe("print(2)\n");
    expect(inlinePrograms(last("awk -F, '{print $1}' f"))[0]).toMatchObject({ language: "awk", text: "{print $1}" });
    expect(inlinePrograms(last("perl -ne 'unlink' list"))[0]?.loops).toBe(true);
    expect(inlinePrograms(last("printf 'import os\\n' > t.py; python3 t.py"))[0]?.text).toBe("import os\n");
    expect(inlinePrograms(last("python3 script.py"))).toEqual([]);
  });

  it("classifies what the code does, by language", () => {
    const program = (language: "python" | "javascript" | "ruby" | "awk", text: string) => ({ language, text, loops: false });
    expect(deletesTrees(program("python", "shutil.rmtree('x')"))).toBe(true);
    expect(deletesTrees(program("python", "os.remove('a')"))).toBe(false);
    expect(deletesTrees(program("python", "for f in x: os.remove(f)"))).toBe(true);
    expect(deletesTrees(program("javascript", "fs.mkdirSync('a', {recursive: true})"))).toBe(false);
    expect(spawnsCommands(program("javascript", "/a/.exec('a')"))).toBe(false);
    expect(spawnsCommands(program("ruby", "puts `id`"))).toBe(true);
    expect(spawnsCommands(program("awk", '{print $1 "|" $2}'))).toBe(false);
    expect(spawnsCommands(program("awk", '{print | "sort"}'))).toBe(true);
    expect(usesNetwork(program("python", "import requests"))).toBe(true);
    expect(dumpsEnvironment(program("python", "os.environ['HOME']"))).toBe(false);
    expect(dumpsEnvironment(program("javascript", "JSON.stringify(process.env)"))).toBe(true);
  });
});

describe("files a command line writes and runs", () => {
  it("records the script a command runs, whether this command line wrote it, and its content when known", () => {
    expect(last("bash x.sh").runsFile).toEqual({ path: "x.sh", direct: false, written: false });
    expect(last("cp a x.sh; ./x.sh").runsFile).toEqual({ path: "./x.sh", direct: true, written: true });
    expect(last("echo ls > x.sh; source x.sh", "source").runsFile).toEqual({ path: "x.sh", direct: false, written: true, content: "ls\n" });
    // A later write whose content is unknown replaces the known content.
    expect(last("echo ls > x.sh; cp b x.sh; sh x.sh").runsFile?.content).toBeUndefined();
  });

  it("knows where copies land", () => {
    expect(copiedFiles(last("cp a.sh b.sh"))).toEqual(["b.sh"]);
    expect(copiedFiles(last("mv dir/a.sh ."))).toEqual(["./a.sh"]);
    expect(copiedFiles(last("cp a b bin/"))).toEqual(["bin/a", "bin/b"]);
    expect(copiedFiles(last("install -t bin run.sh"))).toEqual(["bin/run.sh"]);
  });

  it("matches session-written files by absolute path, relative to cwd, or by suffix without cwd", () => {
    const written = sessionFileMatcher(["/work/p/scripts/c.sh"], "/work/p");
    expect(written("scripts/c.sh")).toBe(true);
    expect(written("./scripts/../scripts/c.sh")).toBe(true);
    expect(written("/work/p/scripts/c.sh")).toBe(true);
    expect(written("c.sh")).toBe(false);
    expect(sessionFileMatcher(["/work/p/scripts/c.sh"])("scripts/c.sh")).toBe(true);
    expect(sessionFileMatcher([])("c.sh")).toBe(false);
  });
});
