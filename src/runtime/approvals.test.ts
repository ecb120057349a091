import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultConfig } from "../config/schema.js";
import type { CommandApprovalRequest, EditApprovalRequest } from "../tools/ports.js";
import { SessionApprovals, type CommandAnswer, type EditAnswer, type PermissionAsker } from "./approvals.js";
import { editAutoApproved, isSensitivePath, planModeRefusal } from "./edit-policy.js";

/** A user who answers from a script and records what they were asked. */
function scriptedUser(commands: CommandAnswer[] = [], edits: EditAnswer[] = []) {
  const asked: Array<CommandApprovalRequest | EditApprovalRequest> = [];
  const asker: PermissionAsker = {
    askCommand: async (request) => {
      asked.push(request);
      return commands.shift() ?? "deny";
    },
    askEdit: async (request) => {
      asked.push(request);
      return edits.shift() ?? "deny";
    },
  };
  return { asker, asked };
}

const command = (patternKey = "rm_recursive", text = "rm -rf build"): CommandApprovalRequest => ({ callId: "c", command: text, patternKey, description: "recursive delete" });
const edit = (path: string): EditApprovalRequest => ({ callId: "c", toolName: "write_file", edits: [{ path, oldText: null, newText: "x" }] });

function approvals(cwd = "/work", persisted: string[] = [], config = defaultConfig()) {
  return new SessionApprovals({ cwd, hermesHome: "/home/u/.hermes", config, persistAllowed: (key) => persisted.push(key) });
}

describe("command approvals", () => {
  it("asks every time for allow_once, and remembers allow_session for that command only, never the rule", async () => {
    const user = scriptedUser(["allow_once", "allow_session"]);
    const session = approvals();
    const ports = session.ports(user.asker, new AbortController().signal);
    expect(await ports.approveCommand!(command())).toBe(true);
    expect(await ports.approveCommand!(command())).toBe(true);
    expect(await ports.approveCommand!(command("rm_recursive", "  rm   -rf build "))).toBe(true);
    expect(user.asked).toHaveLength(2);
    expect(await ports.approveCommand!(command("rm_recursive", "rm -rf ../sibling"))).toBe(false);
    expect(await ports.approveCommand!(command("rm_recursive", "rm -rf ~/Documents"))).toBe(false);
    expect(user.asked).toHaveLength(4);
  });

  it("persists allow_always as the command, and honours both commands and Python Hermes' rule keys in the allowlist", async () => {
    const persisted: string[] = [];
    const user = scriptedUser(["allow_always"]);
    const ports = approvals("/work", persisted).ports(user.asker, new AbortController().signal);
    expect(await ports.approveCommand!(command("git_force_push", "git push --force origin main"))).toBe(true);
    expect(persisted).toEqual(["git push --force origin main"]);

    const config = { ...defaultConfig(), command_allowlist: ["sudo", "rm -rf build"] };
    const other = scriptedUser();
    const allowlisted = approvals("/work", [], config).ports(other.asker, new AbortController().signal);
    expect(await allowlisted.approveCommand!(command("sudo", "sudo ls"))).toBe(true);
    expect(await allowlisted.approveCommand!(command("rm_recursive", "rm -rf build"))).toBe(true);
    expect(other.asked).toHaveLength(0);
    expect(await allowlisted.approveCommand!(command("rm_recursive", "rm -rf src"))).toBe(false);
    expect(other.asked).toHaveLength(1);
  });

  it("always asks to run outside the sandbox, whatever the mode or allowances, and never remembers it", async () => {
    const config = { ...defaultConfig(), command_allowlist: ["sandbox_escalation", "touch x"] };
    config.approvals.mode = "off";
    const user = scriptedUser(["allow_always", "deny"]);
    const persisted: string[] = [];
    const ports = approvals("/work", persisted, config).ports(user.asker, new AbortController().signal);
    const escalation: CommandApprovalRequest = { ...command("sandbox_escalation", "touch x"), escalation: { reason: "needs the home", cwd: "/work" } };
    expect(await ports.approveCommand!(escalation)).toBe(true);
    expect(await ports.approveCommand!(escalation)).toBe(false);
    expect(user.asked).toHaveLength(2);
    expect(persisted).toEqual([]);
  });

  it("fails closed: deny, deny_always (not asked again), and a cancelled turn", async () => {
    const user = scriptedUser(["deny", "deny_always", "allow_once"]);
    const session = approvals();
    const ports = session.ports(user.asker, new AbortController().signal);
    expect(await ports.approveCommand!(command())).toBe(false);
    expect(await ports.approveCommand!(command())).toBe(false);
    expect(await ports.approveCommand!(command())).toBe(false);
    expect(user.asked).toHaveLength(2);
    const cancelled = new AbortController();
    cancelled.abort();
    const fresh = scriptedUser(["allow_once"]);
    expect(await approvals().ports(fresh.asker, cancelled.signal).approveCommand!(command())).toBe(false);
    expect(fresh.asked).toHaveLength(0);
  });

  it("binds approvals to the turn that asked: another session's asker is never consulted", async () => {
    const first = scriptedUser(["allow_session"]);
    const second = scriptedUser([]);
    const a = approvals();
    const b = approvals();
    await a.ports(first.asker, new AbortController().signal).approveCommand!(command());
    expect(await b.ports(second.asker, new AbortController().signal).approveCommand!(command())).toBe(false);
    expect(first.asked).toHaveLength(1);
    expect(second.asked).toHaveLength(1);
  });
});

describe("edit approvals", () => {
  const root = mkdtempSync(join(tmpdir(), "hermes-policy-"));
  const cwd = join(root, "project");
  mkdirSync(join(cwd, ".git"), { recursive: true });
  writeFileSync(join(cwd, ".env"), "A=1\n");
  symlinkSync(join(cwd, ".env"), join(cwd, "innocent.txt"));

  it("asks in default mode, auto-approves inside cwd in accept_edits and dont_ask, and asks outside in both", async () => {
    const session = approvals(cwd);
    const user = scriptedUser([], ["allow"]);
    const ports = session.ports(user.asker, new AbortController().signal);
    expect(await ports.approveEdit!(edit(join(cwd, "a.ts")))).toBe(true);
    expect(user.asked).toHaveLength(1);
    session.mode = "accept_edits";
    expect(await ports.approveEdit!(edit(join(cwd, "src/b.ts")))).toBe(true);
    expect(await ports.approveEdit!(edit("/etc/hosts"))).toBe(false);
    session.mode = "dont_ask";
    expect(await ports.approveEdit!(edit(join(cwd, "src/c.ts")))).toBe(true);
    expect(await ports.approveEdit!(edit("/somewhere/else.ts"))).toBe(false); // asked, and the script denies
    session.mode = "plan";
    expect(await ports.approveEdit!(edit(join(cwd, "a.ts")))).toBe(false);
  });

  it("always asks for .git, .ssh, .env*, ssh keys, and symlinks to them", () => {
    for (const path of [join(cwd, ".git/config"), "/home/u/.ssh/config", join(cwd, ".env"), join(cwd, ".env.local"), "/x/id_rsa", "/x/id_ed25519", join(cwd, "innocent.txt")]) {
      expect(isSensitivePath(path), path).toBe(true);
      expect(editAutoApproved("dont_ask", [path], cwd), path).toBe(false);
    }
    expect(isSensitivePath(join(cwd, "src/env.ts"))).toBe(false);
  });

  it("always asks for HERMES_HOME (config.yaml can switch approvals off), shell start-up files and credential stores", async () => {
    const session = approvals(cwd);
    session.mode = "dont_ask";
    const ports = session.ports(scriptedUser([], []).asker, new AbortController().signal);
    for (const path of ["/home/u/.hermes/config.yaml", "/home/u/.hermes/.env", "/home/u/.bashrc", "/home/u/.zshrc", "/home/u/.netrc", "/home/u/.aws/credentials"]) {
      expect(await ports.approveEdit!(edit(path)), path).toBe(false);
    }
    expect(await ports.approveEdit!(edit(join(cwd, "notes.md")))).toBe(true);
    expect(await ports.approveEdit!(edit("/home/u/project/notes.md"))).toBe(false); // outside the workspace
  });

  it("auto-approves the temp directory in accept_edits", () => {
    expect(editAutoApproved("accept_edits", [join(tmpdir(), "scratch.txt")], "/work")).toBe(true);
    expect(editAutoApproved("accept_edits", [join(cwd, "../outside.txt")], cwd)).toBe(true); // still under tmpdir
    expect(editAutoApproved("accept_edits", ["/usr/local/outside.txt"], cwd)).toBe(false);
  });
});

describe("plan mode", () => {
  it("allows reading, searching and todo, and refuses everything else", () => {
    expect(planModeRefusal({ name: "read_file", kind: "read" })).toBeUndefined();
    expect(planModeRefusal({ name: "search_files", kind: "search" })).toBeUndefined();
    expect(planModeRefusal({ name: "todo", kind: "other" })).toBeUndefined();
    expect(planModeRefusal({ name: "terminal", kind: "execute" })).toContain("Blocked in Plan mode: 'terminal'");
    expect(planModeRefusal({ name: "mystery", kind: "other" })).toContain("Blocked in Plan mode");
  });
});
