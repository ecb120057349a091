import { agentTempRoot, hiddenFileStub } from "./agent-temp.js";
import { bwrapArgs } from "./sandbox/bwrap.js";
import { sandboxAvailability, type SandboxAvailability } from "./sandbox/availability.js";
import { planSandbox, type SandboxPlan } from "./sandbox/policy.js";
import { seatbeltArgs } from "./sandbox/seatbelt.js";
import type { ToolContext } from "../types.js";

/**
 * The one place a command's confinement is chosen. Linux: bubblewrap, driven directly
 * (`sandbox/bwrap.ts`); macOS: Seatbelt through `sandbox-exec` with a generated profile
 * (`sandbox/seatbelt.ts`). `@anthropic-ai/sandbox-runtime` was evaluated and not used: its current
 * releases need Node ≥ 22.12 (we run on 20); the older ones that allow Node 18 bring zod 3, a SOCKS
 * proxy and node-forge for network filtering we do not need, and its settings cannot express what
 * this policy must (all of HERMES_HOME read-only and credentials hidden inside writable roots,
 * `.git` pinned, escape sockets hidden, per-call writable state folders). Driving the two tools
 * directly is a small, fully tested argv/profile builder.
 */

/** A program to run, before or after confinement. */
export interface ExecSpec {
  file: string;
  args: string[];
  cwd: string;
}

/** Paths one call needs writable or read-only although the plan would say otherwise. */
export interface CallPaths {
  writable?: readonly string[];
  readOnly?: readonly string[];
}

/**
 * How the next command of a call runs:
 * - `sandboxed`: `wrap` turns a program into its confined invocation (`plan` says what it may touch);
 * - `unconfined`: approvals only; `notice` is set the first time in a session that this happens
 *   because no sandbox exists (the user must be told once);
 * - `refused`: no sandbox and `sandbox.required` (or read-only mode, which cannot be had without
 *   one): the command must not run; `message` says why.
 */
export type Confinement =
  | { kind: "sandboxed"; plan: SandboxPlan; wrap(spec: ExecSpec): ExecSpec }
  | { kind: "unconfined"; reason: "off" | "escalated" | "unavailable"; notice?: string }
  | { kind: "refused"; message: string };

const NOTICE_KEY = Symbol("hermes.exec.sandbox-notice");

/**
 * Decides the confinement of one command from the session's sandbox settings (`ctx.sandbox`),
 * the machine's sandbox (probed once per process) and whether the user allowed this command
 * outside the sandbox (`escalated`). Fails closed: read-only mode without a sandbox is refused,
 * since read-only cannot be promised. Never rejects.
 */
export async function confine(ctx: ToolContext, options: { escalated?: boolean; paths?: CallPaths } = {}): Promise<Confinement> {
  const settings = ctx.sandbox;
  if (settings.mode === "off") return { kind: "unconfined", reason: "off" };
  if (options.escalated) return { kind: "unconfined", reason: "escalated" };
  const available = await sandboxAvailability();
  if (available.kind === "none") {
    if (settings.required || settings.mode === "read-only") {
      const why = settings.mode === "read-only" ? "this mode only runs commands read-only, inside a sandbox" : "sandbox.required is set in config.yaml";
      return { kind: "refused", message: `No sandbox is available (${available.reason}), and ${why}, so the command was not run.` };
    }
    const told = ctx.state.get(NOTICE_KEY, () => ({ shown: false }));
    const first = !told.shown;
    told.shown = true;
    const notice = `Commands run without a sandbox in this session: ${available.reason}. Only the approval prompts stand between the agent and your files.`;
    return { kind: "unconfined", reason: "unavailable", ...(first ? { notice } : {}) };
  }
  const plan = planSandbox({
    settings,
    cwd: ctx.cwd,
    hermesHome: ctx.hermesHome,
    ...(options.paths?.writable ? { callWritable: options.paths.writable } : {}),
    callReadOnly: [agentTempRoot(), ...(options.paths?.readOnly ?? [])],
  });
  if (!plan) return { kind: "unconfined", reason: "off" };
  return { kind: "sandboxed", plan, wrap: (spec) => wrapIn(available, plan, spec) };
}

function wrapIn(available: Exclude<SandboxAvailability, { kind: "none" }>, plan: SandboxPlan, spec: ExecSpec): ExecSpec {
  if (available.kind === "seatbelt") return { file: available.path, args: seatbeltArgs(plan, spec), cwd: spec.cwd };
  return { file: available.path, args: bwrapArgs(plan, spec, hiddenFileStub()), cwd: spec.cwd };
}
