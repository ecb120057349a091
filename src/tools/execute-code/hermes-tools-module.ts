/**
 * The `hermes_tools` Python module a script imports, generated per run for the tools the session
 * has among those Hermes allows inside scripts (`SANDBOX_ALLOWED_TOOLS` in Hermes'
 * `code_execution_tool.py`). Each function sends one request over the private channel and returns
 * the tool's JSON result, parsed.
 *
 * Channel (newline-delimited JSON, UTF-8): the script writes `{"id", "tool", "args"}` lines to fd 3
 * and reads `{"id", "result"}` lines from fd 4, one request at a time (a lock serializes threads).
 * Both are pipes the agent created when it spawned the interpreter, inherited through bwrap or
 * Seatbelt; nothing appears in the file system, and no other process can reach them. The module
 * marks them non-inheritable at import, so programs the script starts do not get them.
 */

/** The tools a script may call, in Hermes' list (no delegate_task, execute_code, clarify, memory…). */
export const SCRIPT_TOOLS = ["web_search", "web_extract", "read_file", "write_file", "search_files", "patch", "terminal"] as const;

export type ScriptToolName = (typeof SCRIPT_TOOLS)[number];

/** File descriptors of the channel, as the script sees them. */
export const REQUEST_FD = 3;
export const RESPONSE_FD = 4;

/** Per tool: the Python signature, its docstring, and the argument names sent (None values are left out). */
const STUBS: Record<ScriptToolName, { signature: string; doc: string; args: readonly string[] }> = {
  web_search: { signature: "query", doc: 'Search the web. Returns {"data": {"web": [{"url", "title", "description"}, ...]}}.', args: ["query"] },
  web_extract: { signature: "urls", doc: 'Extract pages as markdown (up to 5 URLs). Returns {"results": [{"url", "title", "content", "error"}, ...]}.', args: ["urls"] },
  read_file: {
    signature: "path, offset=None, limit=None",
    doc: 'Read a text file (1-based lines). Returns {"content": "N|text" lines, "total_lines", "file_size", "truncated", "hint"?}.',
    args: ["path", "offset", "limit"],
  },
  write_file: { signature: "path, content", doc: "Write a whole file (overwrites). Asks the user like a direct write.", args: ["path", "content"] },
  search_files: {
    signature: "pattern, target=None, path=None, file_glob=None, limit=None, offset=None, output_mode=None, context=None",
    doc: 'Search file contents with a regex (target="content") or find files by glob (target="files").',
    args: ["pattern", "target", "path", "file_glob", "limit", "offset", "output_mode", "context"],
  },
  patch: {
    signature: "path=None, old_string=None, new_string=None, replace_all=None, mode=None, patch=None",
    doc: 'Replace old_string with new_string in path, or apply a V4A patch (mode="patch", patch=...).',
    args: ["path", "old_string", "new_string", "replace_all", "mode", "patch"],
  },
  terminal: {
    signature: "command, timeout=None, workdir=None",
    doc: 'Run a shell command in the sandbox (foreground only). Returns {"output", "exit_code", ...}.',
    args: ["command", "timeout", "workdir"],
  },
};

const HEADER = `"""Hermes tools for execute_code scripts (generated for this run).

Each function calls the agent's tool of the same name and returns its JSON result as a dict (a
failed call: a dict with "error"). Calls are checked, approved and sandboxed like direct calls.
"""
import json as _json
import os as _os
import shlex as _shlex
import threading as _threading
import time as _time

_REQUEST_FD = ${REQUEST_FD}
_RESPONSE_FD = ${RESPONSE_FD}
_lock = _threading.Lock()
_seq = 0
_channel = None

try:
    _os.set_inheritable(_REQUEST_FD, False)
    _os.set_inheritable(_RESPONSE_FD, False)
except OSError:
    pass


def _open():
    global _channel
    if _channel is None:
        try:
            _channel = (_os.fdopen(_REQUEST_FD, "wb"), _os.fdopen(_RESPONSE_FD, "rb"))
        except OSError as exc:
            raise RuntimeError("hermes_tools works only inside execute_code (no channel to the agent)") from exc
    return _channel


def _call(tool, args):
    global _seq
    payload = {key: value for key, value in args.items() if value is not None}
    with _lock:
        requests, responses = _open()
        _seq += 1
        line = _json.dumps({"id": _seq, "tool": tool, "args": payload}, default=str) + "\\n"
        requests.write(line.encode("utf-8"))
        requests.flush()
        reply = responses.readline()
    if not reply:
        raise RuntimeError("hermes_tools: the agent closed the channel (the run is being stopped)")
    return _json.loads(reply.decode("utf-8"))["result"]


def json_parse(text):
    """json.loads that tolerates control characters and a UTF-8 BOM (for terminal() output)."""
    if isinstance(text, str) and text.startswith("\\ufeff"):
        text = text[1:]
    return _json.loads(text, strict=False)


def shell_quote(s):
    """Quote a string for a shell command: terminal(f"cat {shell_quote(name)}")."""
    return _shlex.quote(s)


def retry(fn, max_attempts=3, delay=2):
    """Call fn() up to max_attempts times with exponential backoff; re-raises the last error."""
    last = None
    for attempt in range(max_attempts):
        try:
            return fn()
        except Exception as exc:  # noqa: BLE001
            last = exc
            if attempt < max_attempts - 1:
                _time.sleep(delay * (2 ** attempt))
    raise last
`;

function stub(name: ScriptToolName): string {
  const { signature, doc, args } = STUBS[name];
  const payload = args.map((arg) => `"${arg}": ${arg}`).join(", ");
  return `\n\ndef ${name}(${signature}):\n    """${doc}"""\n    return _call("${name}", {${payload}})\n`;
}

/** The script tools among `sessionTools`, in Hermes' order. */
export function scriptTools(sessionTools: readonly string[]): ScriptToolName[] {
  const available = new Set(sessionTools);
  return SCRIPT_TOOLS.filter((name) => available.has(name));
}

/** The module's source for `tools` (helpers always included). Pure. */
export function hermesToolsModule(tools: readonly ScriptToolName[]): string {
  const names = [...tools, "json_parse", "shell_quote", "retry"];
  return `${HEADER}${tools.map(stub).join("")}\n\n__all__ = [${names.map((name) => `"${name}"`).join(", ")}]\n`;
}

/** The launcher's file name, beside the module and the script in the run's private folder. */
export const LAUNCHER_FILE = "hermes_launch.py";

/**
 * The launcher python3 runs (`python3 -B hermes_launch.py script.py`): it closes every file
 * descriptor the interpreter inherited beyond 0-4 (the agent's own process may hold descriptors
 * its launcher leaked without close-on-exec: an editor's sockets, a shell's pipes; bwrap and
 * Seatbelt pass them on), then runs the script as `__main__` with its own `__file__` and argv.
 * Its folder is the script's, so `sys.path[0]` is what it would be for the script.
 */
export function scriptLauncher(): string {
  return `"""Runs an execute_code script with no inherited file descriptor but 0-4 (generated)."""
import os as _os
import sys as _sys


def _close_inherited():
    for folder in ("/proc/self/fd", "/dev/fd"):
        try:
            names = _os.listdir(folder)
        except OSError:
            continue
        for name in names:
            if name.isdigit() and int(name) > ${RESPONSE_FD}:
                try:
                    _os.close(int(name))
                except OSError:
                    pass
        return
    _os.closerange(${RESPONSE_FD + 1}, 65536)


def _run(path):
    import __main__
    import sys

    scope = __main__.__dict__
    for key in [key for key in scope if key not in ("__name__", "__builtins__")]:
        del scope[key]
    scope.update({"__file__": path, "__doc__": None, "__spec__": None, "__package__": None})
    sys.argv = [path]
    with open(path, "rb") as source:
        code = compile(source.read(), path, "exec")
    exec(code, scope)


_close_inherited()
_run(_sys.argv[1])
`;
}
