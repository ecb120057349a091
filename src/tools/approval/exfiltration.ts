/**
 * Credential and environment exfiltration: a command line that reads a secret — a known
 * credential file (`~/.ssh/*` keys, `~/.aws/credentials`, `~/.netrc`, `~/.git-credentials`,
 * `~/.docker/config.json`, `~/.kube/config`, `$HERMES_HOME/…`, `.env` files, `/proc/<pid>/environ`,
 * …) or the whole environment (`env`, `printenv`, `os.environ`) — and hands it to a network
 * sender (`curl`, `wget`, `nc`, `ssh`, `scp`, `rsync` to a remote, interpreter code using
 * `requests`/`fetch`/sockets, a `/dev/tcp` redirect, …).
 *
 * A sender matches when (a) it reads the secret itself (`curl -F f=@~/.aws/credentials`,
 * `scp ~/.ssh/id_rsa host:`, `nc h p < .env`, `curl -d "$(env)"`, inline code that reads and
 * sends), (b) another member of its pipeline reads it (`cat ~/.ssh/id_rsa | curl -d @- …`), or
 * (c) it sends data and any other command of the same command line reads it
 * (`K=$(cat ~/.ssh/id_rsa); curl -d "$K" …`, `cp ~/.aws/credentials /tmp/c && curl -T /tmp/c …`).
 * Using a credential for authentication (`ssh -i ~/.ssh/key`, `curl --cert`, `--kubeconfig`) is
 * not reading it out, and senders that talk only to the loopback interface do not count.
 */
import { parseArgs } from "./argv.js";
import { dumpsEnvironment, inlinePrograms, usesNetwork } from "./inline-code.js";
import { UNKNOWN } from "./normalize.js";
import type { CommandRule, Script, SimpleCommand } from "./simple-command.js";
import { writeTargets } from "./write-targets.js";

const HOME_ANCHOR = /^(?:~[^/]*|\/home\/[^/]+|\/Users\/[^/]+|\/root)(?=\/|$)/;
/** Secrets below a home directory (the text after the home anchor). */
const HOME_SECRETS = new RegExp(
  "^/(?:" +
    [
      String.raw`\.ssh(?:/(?!.*\.pub$)(?!known_hosts)|$)`,
      String.raw`\.aws(?:/|$)`,
      String.raw`\.netrc$`,
      String.raw`\.git-credentials$`,
      String.raw`\.docker/config\.json$`,
      String.raw`\.kube(?:/|$)`,
      String.raw`\.config/(?:gh/hosts\.ya?ml|gcloud(?:/.*)?|rclone/rclone\.conf|hub)$`,
      String.raw`\.azure(?:/|$)`,
      String.raw`\.gnupg(?:/|$)`,
      String.raw`\.(?:npmrc|pypirc|pgpass|my\.cnf|vault-token|boto|s3cfg)$`,
      String.raw`\.terraform\.d/credentials\.tfrc\.json$`,
      String.raw`\.(?:cargo|gem)/credentials(?:\.toml)?$`,
      String.raw`\.hermes(?:/|$)`,
      String.raw`\.password-store(?:/|$)`,
      String.raw`\.local/share/keyrings(?:/|$)`,
    ].join("|") +
    ")",
);
const SYSTEM_SECRETS = /^\/(?:proc\/[^/]+\/environ|etc\/g?shadow|etc\/ssh\/ssh_host_\w+_key|(?:var\/)?run\/secrets(?:\/.*)?)$/;
/** Variables that name a secret file or directory. */
const SECRET_VARS = /^\$\{?(?:HERMES_HOME|AWS_SHARED_CREDENTIALS_FILE|KUBECONFIG|GOOGLE_APPLICATION_CREDENTIALS|DOCKER_CONFIG|GNUPGHOME|NETRC)\b/;
const SECRET_BASENAMES = /^(?:\.env(?:\..+)?|\.envrc|id_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?|\.netrc|\.git-credentials|\.pgpass)$/;
const ENV_TEMPLATE = /^\.env\.(?:example|sample|template|dist|defaults?)$/;
const URL_RE = /^[a-z][\w+.-]*:\/\//i;
const REMOTE_SPEC = /^(?:[\w.-]+@)?[\w.-]+:(?!\/\/)/;

/** True for text naming a credential file or directory (lexically; nothing is read). */
export function isCredentialPath(raw: string): boolean {
  if (URL_RE.test(raw) || REMOTE_SPEC.test(raw)) return false;
  const path = raw.replace(/\/{2,}/g, "/").replace(/\/\.(?=\/|$)/g, "");
  if (SECRET_VARS.test(path) || SYSTEM_SECRETS.test(path)) return true;
  const home = HOME_ANCHOR.exec(path);
  if (home && HOME_SECRETS.test(path.slice(home[0].length))) return true;
  const base = path.replace(/\/+$/, "").split("/").pop() ?? "";
  return SECRET_BASENAMES.test(base) && !ENV_TEMPLATE.test(base);
}

/** Path-like pieces of a word: the word, and what follows `=`, `@` or `<` in it (`f=@~/.aws/credentials;type=x`). */
function pathCandidates(text: string): string[] {
  return text
    .split(/[\s'"`(),;|&>]+/)
    .flatMap((token) => [token, ...["=", "@", "<"].map((sep) => (token.includes(sep) ? token.slice(token.indexOf(sep) + 1) : ""))])
    .filter((token) => token.length > 0);
}

/** Options whose value a tool uses to authenticate, not to send (`ssh -i key`, `curl --cert`, `--kubeconfig`). */
const AUTH_VALUE: Record<string, RegExp> = {
  ssh: /^-[iFSE]$/,
  scp: /^-[iFS]$/,
  sftp: /^-[iFS]$/,
  rsync: /^(?:-e|--rsh|--password-file)$/,
  curl: /^(?:-E|-K|--cert|--key|--cacert|--capath|--netrc-file|--proxy-cert|--proxy-key|--proxy-cacert|--crlfile|--config)$/,
  wget: /^(?:--certificate|--private-key|--ca-certificate|--ca-directory)$/,
};
const ANY_AUTH_VALUE = /^(?:--kubeconfig|--identity-file|--key-file)$/;
const SSH_KEY_OPTION = /^-o\s*(?:IdentityFile|CertificateFile|UserKnownHostsFile|IdentityAgent|ControlPath)\b/i;

/** Arguments the command reads as data: its args without authentication values and without write targets. */
function dataArgs(command: SimpleCommand): string[] {
  const auth = Object.hasOwn(AUTH_VALUE, command.name) ? AUTH_VALUE[command.name] : undefined;
  const writes = new Set(writeTargets(command));
  const out: string[] = [];
  for (let i = 0; i < command.args.length; i++) {
    const arg = command.args[i] as string;
    const eq = arg.indexOf("=");
    const option = eq === -1 ? arg : arg.slice(0, eq);
    if (auth?.test(option) || ANY_AUTH_VALUE.test(option)) {
      if (eq === -1) i++;
      continue;
    }
    if (arg === "-o" && SSH_KEY_OPTION.test(`-o${command.args[i + 1] ?? ""}`)) {
      i++;
      continue;
    }
    if (SSH_KEY_OPTION.test(arg) || writes.has(arg)) continue;
    out.push(arg);
  }
  return out;
}

/** Commands that touch a credential file without disclosing its content. */
const NON_DISCLOSING = new Set([
  "ssh-keygen", "ssh-add", "ssh-copy-id", "ls", "stat", "test", "[", "chmod", "chown", "chgrp", "touch", "mkdir", "rm", "file", "du",
  "realpath", "readlink", "dirname", "basename", "cd", "pushd", "source", ".", "echo", "printf",
]);

function readsCredentialItself(command: SimpleCommand, withArgs: boolean): boolean {
  if (NON_DISCLOSING.has(command.name)) return false;
  const texts = command.redirects.filter((redirect) => redirect.op === "<" || redirect.op === "<>").map((redirect) => redirect.target);
  if (withArgs) texts.push(...dataArgs(command), ...inlinePrograms(command).map((program) => program.text));
  return texts.some((text) => pathCandidates(text).some(isCredentialPath));
}

/** True when the command (or a command substituted into it) reads a credential's content. */
function readsCredential(command: SimpleCommand, withArgs = true): boolean {
  return readsCredentialItself(command, withArgs) || command.substituted.some((inner) => readsCredentialItself(inner, true));
}

/** `env`, `printenv`, `set`, `export -p`, `declare -x`, `compgen -e`, inline code reading all of `os.environ`. */
function dumpsEnvItself(command: SimpleCommand): boolean {
  const { name, args, wrappers } = command;
  if (name === "" && wrappers[wrappers.length - 1] === "env") return true;
  if (inlinePrograms(command).some(dumpsEnvironment)) return true;
  const operands = parseArgs(args).operands;
  switch (name) {
    case "printenv":
      return operands.length === 0;
    case "set":
    case "export":
      return args.length === 0 || (args.every((arg) => /^-\w+$/.test(arg)) && args.some((arg) => arg.includes("p")));
    case "declare":
    case "typeset":
      return operands.length === 0 && args.some((arg) => /^-\w*[px]/.test(arg));
    case "compgen":
      return args.some((arg) => /^-\w*[ev]/.test(arg));
    default:
      return false;
  }
}

function dumpsEnv(command: SimpleCommand): boolean {
  return dumpsEnvItself(command) || command.substituted.some(dumpsEnvItself);
}

const NET_TOOLS = new Set([
  "curl", "wget", "nc", "ncat", "netcat", "socat", "telnet", "ftp", "sftp", "lftp", "tftp", "ssh", "http", "https", "xh", "mail", "mailx",
  "sendmail", "mutt", "smbclient", "dig", "nslookup", "host", "drill", "aws", "gsutil", "rclone", "s3cmd", "gcloud", "az", "gh", "kubectl",
]);
const LOOPBACK = /^(?:[a-z][\w+.-]*:\/\/)?(?:[^/@\s]+@)?(?:localhost|127(?:\.\d{1,3}){3}|0\.0\.0\.0|\[::1\]|::1)(?::\d+)?(?:[/?#]|$)/i;

function hasRemoteOperand(command: SimpleCommand): boolean {
  return parseArgs(command.args, { shortValue: "eiFPSlcoJ" }).operands.some((operand) => REMOTE_SPEC.test(operand) || /^rsync:\/\//.test(operand));
}

/** The command talks only to this machine (`curl localhost:3000`, `nc 127.0.0.1 8080`). */
function loopbackOnly(command: SimpleCommand): boolean {
  const targets = command.args.filter((arg) => URL_RE.test(arg) || LOOPBACK.test(arg));
  return targets.length > 0 && targets.every((arg) => LOOPBACK.test(arg));
}

/** True for a command that can send data over the network. */
function isSender(command: SimpleCommand): boolean {
  if (command.redirects.some((redirect) => /^\/dev\/(?:tcp|udp)\//.test(redirect.target))) return true;
  if (command.wrappers.includes("ssh") || inlinePrograms(command).some(usesNetwork)) return true;
  if (command.name === "scp" || command.name === "rsync") return hasRemoteOperand(command);
  if (command.name === "openssl") return command.args[0] === "s_client";
  return NET_TOOLS.has(command.name) && !loopbackOnly(command);
}

const CURL_SENDS = /^(?:-[a-zA-Z]*[dFT][a-zA-Z]*|--data.*|--form.*|--upload-file|--json|--url-query)$/;
const WGET_SENDS = /^--(?:post|body)-(?:data|file)\b/;
const CLOUD_UPLOAD = /^(?:cp|sync|mv|put|upload|copy|create|set|apply)$/;

/** True when the sender sends data of its own choosing (a body, a file, stdin, unknown text), not just a request. */
function sendsData(command: SimpleCommand): boolean {
  const { name, args } = command;
  if (args.some((arg) => arg.includes(UNKNOWN))) return true;
  if (command.redirects.some((redirect) => /^\/dev\/(?:tcp|udp)\//.test(redirect.target))) return true;
  // ssh sends what reaches its stdin; an interactive or remote-command session alone sends nothing of ours.
  if (command.wrappers.includes("ssh") || name === "ssh") return command.pipelineIndex > 0 || command.stdin !== undefined || command.redirects.some((redirect) => redirect.op === "<");
  if (inlinePrograms(command).some(usesNetwork)) return true;
  switch (name) {
    case "curl":
      return args.some((arg) => CURL_SENDS.test(arg.split("=")[0] ?? ""));
    case "wget":
      return args.some((arg) => WGET_SENDS.test(arg));
    case "dig":
    case "nslookup":
    case "host":
    case "drill":
      return false;
    case "aws":
    case "gsutil":
    case "rclone":
    case "s3cmd":
    case "gcloud":
    case "az":
    case "gh":
    case "kubectl":
      return args.some((arg) => CLOUD_UPLOAD.test(arg));
    default:
      return true;
  }
}

type Discloses = (command: SimpleCommand, withArgs?: boolean) => boolean;

/** The commands of each script that disclose a secret, per test; computed once per script so long scripts stay linear. */
const DISCLOSERS = new WeakMap<Script, Map<Discloses, ReadonlySet<SimpleCommand>>>();

function disclosers(script: Script, discloses: Discloses): ReadonlySet<SimpleCommand> {
  let byTest = DISCLOSERS.get(script);
  if (!byTest) DISCLOSERS.set(script, (byTest = new Map()));
  let found = byTest.get(discloses);
  if (!found) byTest.set(discloses, (found = new Set(script.commands.filter((command) => discloses(command)))));
  return found;
}

function exfiltrates(command: SimpleCommand, script: Script, discloses: Discloses): boolean {
  if (!isSender(command)) return false;
  // An ssh payload runs remotely: its words are not read here, its redirections and substitutions are.
  if (discloses(command, !command.wrappers.includes("ssh"))) return true;
  const found = disclosers(script, discloses);
  if (found.size === 0) return false;
  if (command.pipeline.some((member, index) => index !== command.pipelineIndex && found.has(member))) return true;
  return sendsData(command) && found.size > (found.has(command) ? 1 : 0);
}

export const EXFILTRATION_RULES: readonly CommandRule[] = [
  { key: "credential_exfiltration", description: "send credentials or secrets (keys, tokens, .env) over the network", matches: (c, s) => exfiltrates(c, s, readsCredential) },
  { key: "env_exfiltration", description: "send the environment variables over the network", matches: (c, s) => exfiltrates(c, s, dumpsEnv) },
];
