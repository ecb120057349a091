/**
 * Which shell runs the terminal's commands. Everywhere but Windows: `bash` on PATH. On Windows:
 * a bash when one is found — Git for Windows (Git Bash), MSYS2, or a `bash.exe` on PATH (Git's,
 * or WSL's launcher) — else PowerShell 7 (`pwsh`), else Windows PowerShell. The system prompt
 * names the shell so the model writes commands for it. Pure apart from checking files exist.
 */
import { accessSync, constants } from "node:fs";
import path from "node:path";
import type { CallFiles } from "./shell-state.js";
import { wrapperArgs } from "./shell-state.js";

export type ShellKind = "bash" | "powershell";

export interface Shell {
  kind: ShellKind;
  /** The executable to spawn (a name found on PATH, or a full path). */
  file: string;
  /** How the system prompt names it: `bash`, `bash (Git Bash)`, `PowerShell 7`, `Windows PowerShell`. */
  label: string;
}

/** Whether `file` exists and may be run. */
export type Probe = (file: string) => boolean;

const executable: Probe = (file) => {
  try {
    accessSync(file, process.platform === "win32" ? constants.F_OK : constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/**
 * `program`'s full path on PATH, or undefined. On Windows the PATH variable may be spelled `Path`,
 * its separator is `;`, and names are tried with each `PATHEXT` extension (`.EXE`, `.CMD`, …)
 * unless they already have one.
 */
export function findOnPath(program: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform, exists: Probe = executable): string | undefined {
  const windows = platform === "win32";
  const paths = windows ? path.win32 : path.posix;
  const value = windows ? (env.PATH ?? env.Path ?? Object.entries(env).find(([key]) => key.toUpperCase() === "PATH")?.[1]) : env.PATH;
  const extensions = windows && !paths.extname(program) ? (env.PATHEXT ?? ".COM;.EXE;.BAT;.CMD").split(";").filter(Boolean) : [""];
  for (const dir of (value ?? "").split(windows ? ";" : ":")) {
    if (!dir) continue;
    for (const extension of extensions) {
      const candidate = paths.join(dir.replace(/^"|"$/g, ""), `${program}${extension.toLowerCase()}`);
      if (exists(candidate)) return candidate;
    }
  }
  return undefined;
}

/** The shell for commands on `platform`, or undefined when there is none (the terminal is then unavailable). */
export function chooseShell(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform, exists: Probe = executable): Shell | undefined {
  if (platform !== "win32") return findOnPath("bash", env, platform, exists) ? { kind: "bash", file: "bash", label: "bash" } : undefined;
  const win = path.win32;
  const gitRoots = [env.ProgramFiles ?? "C:\\Program Files", env["ProgramFiles(x86)"], env.LOCALAPPDATA && win.join(env.LOCALAPPDATA, "Programs")].filter(
    (root): root is string => typeof root === "string" && root !== "",
  );
  for (const root of gitRoots) {
    const bash = win.join(root, "Git", "bin", "bash.exe");
    if (exists(bash)) return { kind: "bash", file: bash, label: "bash (Git Bash)" };
  }
  const msys = win.join(env.MSYS2_ROOT ?? "C:\\msys64", "usr", "bin", "bash.exe");
  if (exists(msys)) return { kind: "bash", file: msys, label: "bash (MSYS2)" };
  const onPath = findOnPath("bash", env, platform, exists);
  if (onPath) {
    const wsl = /\\system32\\bash\.exe$/i.test(onPath);
    return { kind: "bash", file: onPath, label: wsl ? "bash (WSL)" : "bash" };
  }
  const pwsh = findOnPath("pwsh", env, platform, exists);
  if (pwsh) return { kind: "powershell", file: pwsh, label: "PowerShell 7" };
  const root = env.SystemRoot ?? env.windir ?? "C:\\Windows";
  const windowsPowerShell = win.join(root, "System32", "WindowsPowerShell", "v1.0", "powershell.exe");
  if (exists(windowsPowerShell)) return { kind: "powershell", file: windowsPowerShell, label: "Windows PowerShell" };
  const legacy = findOnPath("powershell", env, platform, exists);
  return legacy ? { kind: "powershell", file: legacy, label: "Windows PowerShell" } : undefined;
}

/**
 * A PowerShell single-quoted string literal of `text`. PowerShell opens and closes such a literal
 * with any single-quote character (`'` and the typographic ‘ ’ ‚ ‛, as in a user name like O’Brien
 * in the temp path), so each of them is doubled.
 */
function psQuote(text: string): string {
  return `'${text.replace(/['\u2018\u2019\u201a\u201b]/g, "$&$&")}'`;
}

/**
 * The PowerShell script that runs `command` like the bash wrapper does: in the session's
 * variable `HERMES_SESSION_ID`, the command decoded from base64 (so no quoting of it can break
 * the script), errors merged into the output, the final location written to `cwdOut` (no BOM)
 * and the command's exit code kept. Exported variables are not carried between calls in
 * PowerShell (only the cwd is).
 */
export function powerShellScript(files: CallFiles, sessionId: string, command: string): string {
  const encoded = Buffer.from(command, "utf8").toString("base64");
  const record = files.cwdOut ? `[IO.File]::WriteAllText(${psQuote(files.cwdOut)}, (Get-Location).ProviderPath)` : "";
  return [
    "$ErrorActionPreference = 'Continue'",
    "$ProgressPreference = 'SilentlyContinue'",
    `$env:HERMES_SESSION_ID = ${psQuote(sessionId)}`,
    `$__hermes_cmd = [Text.Encoding]::UTF8.GetString([Convert]::FromBase64String('${encoded}'))`,
    "$__hermes_ok = $true",
    "$global:LASTEXITCODE = $null",
    `try { Invoke-Expression $__hermes_cmd 2>&1 | Out-Host; $__hermes_ok = $? } catch { Write-Host $_; $__hermes_ok = $false } finally { ${record} }`,
    "if ($null -ne $global:LASTEXITCODE) { exit $global:LASTEXITCODE } elseif ($__hermes_ok) { exit 0 } else { exit 1 }",
  ].join("; ");
}

/** argv (after the executable) that runs `command` in `shell` with the session's state files. */
export function shellArgs(shell: Shell, files: CallFiles, sessionId: string, command: string): string[] {
  if (shell.kind === "bash") return wrapperArgs(files, sessionId, command);
  return ["-NoLogo", "-NoProfile", "-NonInteractive", "-ExecutionPolicy", "Bypass", "-Command", powerShellScript(files, sessionId, command)];
}

let chosen: Shell | undefined;

/**
 * The shell this process runs commands in (chosen once from the agent's environment); `bash` when
 * none is found, so the spawn fails with a clear error (the terminal is not offered then anyway).
 */
export function terminalShell(): Shell {
  chosen ??= chooseShell(process.env) ?? { kind: "bash", file: "bash", label: "bash" };
  return chosen;
}
