import { describe, expect, it } from "vitest";
import { chooseShell, findOnPath, powerShellScript, shellArgs } from "./shell.js";

const only = (...files: string[]) => (file: string): boolean => files.some((known) => known.toLowerCase() === file.toLowerCase());

describe("chooseShell", () => {
  it("uses bash on PATH outside Windows, and none without it", () => {
    expect(chooseShell({ PATH: "/usr/bin:/bin" }, "linux", only("/bin/bash"))).toEqual({ kind: "bash", file: "bash", label: "bash" });
    expect(chooseShell({ PATH: "/usr/bin" }, "darwin", only())).toBeUndefined();
  });

  it("prefers Git Bash, then MSYS2, then a bash.exe on PATH (WSL's named), on Windows", () => {
    const env = { ProgramFiles: "C:\\Program Files", Path: "C:\\Windows\\System32;C:\\tools", PATHEXT: ".COM;.EXE;.CMD" };
    expect(chooseShell(env, "win32", only("C:\\Program Files\\Git\\bin\\bash.exe", "C:\\Windows\\System32\\bash.exe"))).toMatchObject({
      kind: "bash",
      file: "C:\\Program Files\\Git\\bin\\bash.exe",
      label: "bash (Git Bash)",
    });
    expect(chooseShell({ ...env, LOCALAPPDATA: "C:\\Users\\me\\AppData\\Local" }, "win32", only("C:\\Users\\me\\AppData\\Local\\Programs\\Git\\bin\\bash.exe"))).toMatchObject({
      label: "bash (Git Bash)",
    });
    expect(chooseShell(env, "win32", only("C:\\msys64\\usr\\bin\\bash.exe"))).toMatchObject({ label: "bash (MSYS2)" });
    expect(chooseShell(env, "win32", only("C:\\Windows\\System32\\bash.exe"))).toMatchObject({ file: "C:\\Windows\\System32\\bash.exe", label: "bash (WSL)" });
    expect(chooseShell(env, "win32", only("C:\\tools\\bash.exe"))).toMatchObject({ label: "bash" });
  });

  it("falls back to PowerShell 7, then Windows PowerShell, on Windows", () => {
    const env = { Path: "C:\\Program Files\\PowerShell\\7;C:\\Windows\\System32", SystemRoot: "C:\\Windows" };
    expect(chooseShell(env, "win32", only("C:\\Program Files\\PowerShell\\7\\pwsh.exe"))).toMatchObject({ kind: "powershell", label: "PowerShell 7" });
    expect(chooseShell(env, "win32", only("C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe"))).toMatchObject({
      kind: "powershell",
      label: "Windows PowerShell",
    });
    expect(chooseShell(env, "win32", only())).toBeUndefined();
  });
});

describe("findOnPath", () => {
  it("reads Windows' Path spelling, quoted folders and PATHEXT", () => {
    expect(findOnPath("git", { Path: '"C:\\Program Files\\Git\\cmd";C:\\x', PATHEXT: ".EXE;.CMD" }, "win32", only("C:\\Program Files\\Git\\cmd\\git.cmd"))).toBe("C:\\Program Files\\Git\\cmd\\git.cmd");
    expect(findOnPath("python3", { PATH: "/opt/bin:/usr/bin" }, "linux", only("/usr/bin/python3"))).toBe("/usr/bin/python3");
  });
});

describe("PowerShell commands", () => {
  it("carries the command as base64 (no quoting can break out), the session id and the cwd file quoted", () => {
    const command = "Write-Output 'it''s'; exit 3";
    const script = powerShellScript({ restoreFrom: "", cwdOut: "C:\\Temp\\o'brien\\cwd", envOut: "" }, "s'1", command);
    expect(script).toContain(Buffer.from(command, "utf8").toString("base64"));
    expect(script).not.toContain(command);
    expect(script).toContain("$env:HERMES_SESSION_ID = 's''1'");
    expect(script).toContain("[IO.File]::WriteAllText('C:\\Temp\\o''brien\\cwd', (Get-Location).ProviderPath)");
    const args = shellArgs({ kind: "powershell", file: "pwsh", label: "PowerShell 7" }, { restoreFrom: "", cwdOut: "", envOut: "" }, "s", "dir");
    expect(args.slice(0, 6)).toEqual(["-NoLogo", "-NoProfile", "-NonInteractive", "-ExecutionPolicy", "Bypass", "-Command"]);
    expect(args[6]).not.toContain("WriteAllText");
  });

  it("keeps hostile session ids and paths inside their literals, typographic quotes included (PowerShell closes a literal on any of them)", () => {
    /** PowerShell's verbatim string rules: opened and closed by any single-quote character, a doubled one stands for one. */
    const QUOTES = "'\u2018\u2019\u201a\u201b";
    const readLiteral = (script: string, from: number): { value: string; end: number } => {
      expect(QUOTES).toContain(script[from]);
      let value = "";
      for (let i = from + 1; i < script.length; i++) {
        if (!QUOTES.includes(script[i]!)) value += script[i];
        else if (QUOTES.includes(script[i + 1] ?? "")) value += script[++i];
        else return { value, end: i + 1 };
      }
      throw new Error("unterminated literal");
    };
    for (const hostile of ["O\u2019Brien'; Remove-Item -Recurse C:\\; '", "\u2018\u201a\u201b'\n$(calc)\r\n`\"", "x\u2019\u2019; calc"]) {
      const script = powerShellScript({ restoreFrom: "", cwdOut: `C:\\Users\\${hostile}\\cwd`, envOut: "" }, hostile, "dir");
      const id = readLiteral(script, script.indexOf("$env:HERMES_SESSION_ID = ") + "$env:HERMES_SESSION_ID = ".length);
      expect(id.value).toBe(hostile);
      expect(script.slice(id.end, id.end + 2)).toBe("; ");
      const cwd = readLiteral(script, script.indexOf("WriteAllText(") + "WriteAllText(".length);
      expect(cwd.value).toBe(`C:\\Users\\${hostile}\\cwd`);
      expect(script.slice(cwd.end, cwd.end + 2)).toBe(", ");
    }
  });

  it("uses the bash wrapper for bash", () => {
    expect(shellArgs({ kind: "bash", file: "bash", label: "bash" }, { restoreFrom: "", cwdOut: "/t/cwd", envOut: "/t/env" }, "s", "ls")[0]).toBe("--noprofile");
  });
});
