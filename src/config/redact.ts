/**
 * Secret redaction for log lines, error messages and anything else that may leave the process.
 * All patterns are compiled once, and the registered secrets' matcher once per change of the
 * set; `redactSecrets` is safe to call on every log line.
 */
import { findCredentialUrls, maskCredentialUrls } from "./credential-url.js";
import { compileSecretMatcher, type SecretMatcher } from "./secret-forms.js";

/** Vendor prefixes of API keys, longest first; a match keeps the prefix and masks the rest. */
const TOKEN_PREFIXES = [
  "sk-ant-api03-", "sk-ant-admin01-", "sk-ant-oat01-", "sk-ant-", "sk-or-v1-", "sk-or-", "sk-proj-",
  "sk-svcacct-", "sk-kimi-", "sk-", "github_pat_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "glpat-",
  "xoxb-", "xoxp-", "xoxa-", "xoxs-", "xoxr-", "hf_", "gsk_", "xai-", "pplx-", "nvapi-", "tvly-", "r8_",
  "AIza", "AKIA", "ASIA", "sk_live_", "sk_test_", "rk_live_", "rk_test_", "npm_", "ya29.", "xapp-", "shpat_", "glsa_",
];

/** PEM private key blocks, whole. */
const PEM_RE = /-----BEGIN ([A-Z0-9 ]*PRIVATE KEY)-----[\s\S]*?(?:-----END \1-----|$)/g;
/** JSON Web Tokens (`eyJ….eyJ….…`). */
const JWT_RE = /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g;

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** `<prefix><16+ token chars>`, not preceded by a letter or digit (so `task-…` is not `sk-…`). */
const TOKEN_RE = new RegExp(
  `(?<![A-Za-z0-9])(${TOKEN_PREFIXES.map(escapeRegExp).join("|")})[A-Za-z0-9_\\-]{16,}`,
  "g",
);

/** `Bearer <token>` in headers and messages. */
const BEARER_RE = /(\bBearer\s+)[A-Za-z0-9._~+/=-]{8,}(?![A-Za-z0-9._~+/=*-])/gi;

/**
 * The one rule for names whose value is a secret, in text (`api_key: …`, `"apiKey": "…"`) and in
 * the environment: `OPENROUTER_API_KEY`, `STRIPE_KEY`, `GITHUB_TOKEN`, `PGPASSWORD`,
 * `CLIENT_SECRET`, `AWS_SECRET_ACCESS_KEY`, `password`, `token`, `authorization`, `x-api-key`.
 * Whole names only: `max_tokens` or `tokenizer` are not secrets; anything naming a secret or a
 * password is.
 */
const SECRET_NAME =
  "[A-Za-z0-9_-]*(?:api[_-]?key|(?:secret|password|passwd)[A-Za-z0-9_-]*|private[_-]?key|access[_-]?key|" +
  "access[_-]?token|auth[_-]?token|refresh[_-]?token|_token|_key)|token|authorization|x-api-key";
const SECRET_NAME_RE = new RegExp(`^(?:${SECRET_NAME})$`, "i");

/**
 * `NAME=value`, `NAME: value`, `"name": "value"`, `name='value'`. Group 3 is the quote of a quoted
 * value, group 4 the quoted value, group 5 an unquoted value.
 */
const ASSIGNMENT_RE = new RegExp(
  `(?<![A-Za-z0-9_-])(["']?(?:${SECRET_NAME})["']?\\s*[:=]\\s*)` +
    `(?:(["'\`])([^"'\`\\n]*)\\2|([^\\s"'\`,;}&]+))`,
  "gi",
);

/** `?api_key=…`, `&token=…` in URLs. */
const QUERY_RE = /([?&](?:api[_-]?key|key|token|access_token|auth|password|secret)=)[^&\s#"']+/gi;

const MASK = "***";
const MIN_SECRET_LENGTH = 8;
const PLACEHOLDERS = new Set(["no-key-required"]);

const registered = new Set<string>();
let matcher: SecretMatcher | undefined;

/**
 * The masked form of one secret as it appears in text: a credential URL keeps everything but
 * its password (`postgres://app:***@db/app`); anything else keeps only its vendor prefix, if
 * any, followed by `***`.
 */
export function maskSecret(value: string): string {
  const url = maskCredentialUrls(value);
  if (url !== value) return url;
  const prefix = TOKEN_PREFIXES.find((candidate) => value.startsWith(candidate));
  return (prefix ?? "") + MASK;
}

/**
 * Adds an exact value that `redactSecrets` and `redactRegisteredSecrets` always mask from now on
 * (with its reversed and encoded spellings in the latter). A multi-line value is also registered
 * line by line. Values shorter than 8 characters (after trimming) and the `no-key-required`
 * placeholder are ignored.
 */
export function registerSecret(value: string | null | undefined): void {
  if (typeof value !== "string") return;
  addSecret(value);
  if (value.includes("\n")) for (const line of value.split(/\r?\n/)) addSecret(line);
}

function addSecret(value: string): void {
  const trimmed = value.trim();
  if (trimmed.length < MIN_SECRET_LENGTH || PLACEHOLDERS.has(trimmed) || registered.has(trimmed)) return;
  registered.add(trimmed);
  matcher = undefined;
}

/**
 * Registers the credential URLs in `text` (`scheme://user:password@host…`): each whole URL token
 * (masked as `scheme://user:***@host…`) and each password of 8 characters or more on its own,
 * as written and percent-decoded.
 */
export function registerCredentialUrls(text: string | null | undefined): void {
  if (typeof text !== "string") return;
  for (const { url, password } of findCredentialUrls(text)) {
    registerSecret(url);
    registerSecret(password);
    registerSecret(percentDecoded(password));
  }
}

/** `text` with `%XX` escapes decoded, or undefined when it has none or they are malformed. */
function percentDecoded(text: string): string | undefined {
  if (!text.includes("%")) return undefined;
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/**
 * Registers the values of variables whose names look secret (`*_KEY`, `*_TOKEN`, `*SECRET*`,
 * `*PASSWORD*`), and the credential URLs in every variable's value, whatever its name.
 */
export function registerEnvSecrets(env: NodeJS.ProcessEnv, names: Iterable<string> = Object.keys(env)): void {
  for (const name of names) {
    if (isSecretName(name)) registerSecret(env[name]);
    registerCredentialUrls(env[name]);
  }
}

/** True for names (environment variables, fields) that conventionally hold credentials; see SECRET_NAME. */
export function isSecretName(name: string): boolean {
  return SECRET_NAME_RE.test(name);
}

/** Forgets every registered value. Intended for tests. */
export function clearRegisteredSecrets(): void {
  registered.clear();
  matcher = undefined;
}

/**
 * Masks only the registered secret values (the keys the agent actually holds) and their
 * reversed, hex and base64 spellings, also across the line breaks of a wrapped dump (see
 * `compileSecretMatcher`). Used on tool output, where pattern-based masking would garble files
 * the model must read and edit. Never throws; linear in the text: about 3 ms per MB of ordinary
 * text and 20–35 ms per MB of a wrapped base64 or hex dump with 5–50 secrets registered
 * (`npx tsx bench/redact.ts`). The matcher is compiled on first use after the set changed.
 */
export function redactRegisteredSecrets(text: string): string {
  if (!text || registered.size === 0) return text;
  matcher ??= compileSecretMatcher(registered, maskSecret);
  return matcher.mask(text);
}

/**
 * Returns `text` with registered secret values, vendor API keys, Bearer tokens, secret-named
 * assignments (`X_API_KEY=…`, `"api_key": "…"`), secret URL parameters and the passwords of
 * credential URLs (`://user:***@`) masked. Never throws; text without secrets is returned unchanged.
 */
export function redactSecrets(text: string): string {
  if (!text) return text;
  let out = redactRegisteredSecrets(text);
  out = out.replace(PEM_RE, (_match, kind: string) => `-----BEGIN ${kind}-----${MASK}`);
  out = out.replace(JWT_RE, `eyJ${MASK}`);
  out = out.replace(TOKEN_RE, (_match, prefix: string) => prefix + MASK);
  out = out.replace(BEARER_RE, (_match, head: string) => head + MASK);
  out = out.replace(
    ASSIGNMENT_RE,
    (match, head: string, quote: string | undefined, quoted: string | undefined, bare: string | undefined) => {
      const value = quoted ?? bare ?? "";
      if (value === "" || value.includes(MASK) || PLACEHOLDERS.has(value) || /^bearer$/i.test(value)) return match;
      return quote ? `${head}${quote}${MASK}${quote}` : head + MASK;
    },
  );
  out = out.replace(QUERY_RE, (_match, head: string) => head + MASK);
  return maskCredentialUrls(out);
}
