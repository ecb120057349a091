import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import type { RecordedFrame } from "./in-memory-acp.js";

/**
 * The ACP schema as zod validators: the SDK's generated `zod.gen.js` (v1, unstable), the same
 * validators the SDK parses with. The package does not export that module, so it is loaded by
 * path beside the package's main entry; a moved file fails here, loudly, on an SDK upgrade.
 */
interface ZodLike {
  safeParse(value: unknown): { success: true } | { success: false; error: { issues: ReadonlyArray<{ path: PropertyKey[]; message: string }> } };
}

const entry = createRequire(import.meta.url).resolve("@agentclientprotocol/sdk");
const zodFile = join(dirname(entry), "../unstable/schema/zod.gen.js");
const zod = (await import(pathToFileURL(zodFile).href)) as Record<string, ZodLike | undefined>;

function schema(name: string): ZodLike {
  const found = zod[name];
  if (!found) throw new Error(`${zodFile} has no ${name}`);
  return found;
}

/** The params and result schemas of each method, by the side that calls it. */
const REQUESTS: Record<string, { params: string; result: string }> = {
  initialize: { params: "zInitializeRequest", result: "zInitializeResponse" },
  authenticate: { params: "zAuthenticateRequest", result: "zAuthenticateResponse" },
  "session/new": { params: "zNewSessionRequest", result: "zNewSessionResponse" },
  "session/load": { params: "zLoadSessionRequest", result: "zLoadSessionResponse" },
  "session/resume": { params: "zResumeSessionRequest", result: "zResumeSessionResponse" },
  "session/fork": { params: "zForkSessionRequest", result: "zForkSessionResponse" },
  "session/list": { params: "zListSessionsRequest", result: "zListSessionsResponse" },
  "session/close": { params: "zCloseSessionRequest", result: "zCloseSessionResponse" },
  "session/delete": { params: "zDeleteSessionRequest", result: "zDeleteSessionResponse" },
  "session/prompt": { params: "zPromptRequest", result: "zPromptResponse" },
  "session/set_mode": { params: "zSetSessionModeRequest", result: "zSetSessionModeResponse" },
  "session/set_config_option": { params: "zSetSessionConfigOptionRequest", result: "zSetSessionConfigOptionResponse" },
  "session/request_permission": { params: "zRequestPermissionRequest", result: "zRequestPermissionResponse" },
  "elicitation/create": { params: "zCreateElicitationRequest", result: "zCreateElicitationResponse" },
  "fs/read_text_file": { params: "zReadTextFileRequest", result: "zReadTextFileResponse" },
  "fs/write_text_file": { params: "zWriteTextFileRequest", result: "zWriteTextFileResponse" },
  "terminal/create": { params: "zCreateTerminalRequest", result: "zCreateTerminalResponse" },
  "terminal/output": { params: "zTerminalOutputRequest", result: "zTerminalOutputResponse" },
  "terminal/wait_for_exit": { params: "zWaitForTerminalExitRequest", result: "zWaitForTerminalExitResponse" },
  "terminal/kill": { params: "zKillTerminalRequest", result: "zKillTerminalResponse" },
  "terminal/release": { params: "zReleaseTerminalRequest", result: "zReleaseTerminalResponse" },
};

const NOTIFICATIONS: Record<string, string> = {
  "session/update": "zSessionNotification",
  "session/cancel": "zCancelNotification",
  "$/cancel_request": "zCancelRequestNotification",
};

function problems(name: string, value: unknown): string[] {
  const parsed = schema(name).safeParse(value);
  if (parsed.success) return [];
  return parsed.error.issues.map((issue) => `${name} at ${issue.path.map(String).join(".") || "(root)"}: ${issue.message}`);
}

/**
 * Checks every frame against the schema: the JSON-RPC envelope, a request's params and a
 * notification's params by method, a response's result by the method of the request it answers
 * (an error response against `zError`). A method without a schema here is a problem too, so a
 * new method cannot slip through unchecked. Answers one readable line per problem; [] when valid.
 */
export function schemaProblems(frames: readonly RecordedFrame[]): string[] {
  const pending = new Map<string, string>();
  const found: string[] = [];
  frames.forEach(({ from, message }, index) => {
    const where = `frame ${index + 1} (${from})`;
    const report = (lines: string[]): void => {
      for (const line of lines) found.push(`${where}: ${line}`);
    };
    if (message.jsonrpc !== "2.0") report(["jsonrpc is not \"2.0\""]);
    const method = typeof message.method === "string" ? message.method : undefined;
    if (method !== undefined && "id" in message) {
      pending.set(`${from}:${String(message.id)}`, method);
      const known = REQUESTS[method];
      report(known ? problems(known.params, message.params) : [`no schema for request ${method}`]);
    } else if (method !== undefined) {
      const known = NOTIFICATIONS[method];
      report(known ? problems(known, message.params) : [`no schema for notification ${method}`]);
    } else {
      const asked = pending.get(`${from === "client" ? "agent" : "client"}:${String(message.id)}`);
      if (!asked) report([`response to unknown request ${String(message.id)}`]);
      else if ("error" in message) report(problems("zError", message.error));
      else report(REQUESTS[asked] ? problems(REQUESTS[asked].result, message.result) : [`no schema for result of ${asked}`]);
    }
  });
  return found;
}
