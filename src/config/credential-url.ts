/**
 * Credential URLs: `scheme://user:password@host…` (`postgres://app:pw@db/app`,
 * `redis://:pw@cache`, `https://bot:token@git.example`). The password part is a secret whatever
 * the variable or text around it is called. Pure.
 */

/** Characters that end a URL token in prose, shell output, YAML and JSON. */
const URL_END = String.raw`\s'"\x60<>`;

/**
 * Group 1: `scheme://user:` (user may be empty); group 2: the password, which stops at `@`, `/`
 * or the end of the token (so `https://host:8080/a@b` is a port, not a password).
 */
const CREDENTIAL_URL_SOURCE = String.raw`\b([a-z][a-z0-9+.-]*:\/\/[^${URL_END}:/@]*:)([^${URL_END}/@]+)@`;
const CREDENTIAL_URL_RE = new RegExp(CREDENTIAL_URL_SOURCE, "gi");
/** The whole URL token: the credential head plus the rest up to the end of the token. */
const CREDENTIAL_URL_TOKEN_RE = new RegExp(`${CREDENTIAL_URL_SOURCE}[^${URL_END}]*`, "gi");

/** The mask a credential URL's password is replaced with. */
export const URL_PASSWORD_MASK = "***";

/** One credential URL found in a text. */
export interface CredentialUrl {
  /** The whole URL token, scheme to the end of the token. */
  url: string;
  /** The password part, as written (percent-encoding kept). */
  password: string;
}

/** Every credential URL in `text`, in order. Never throws. */
export function findCredentialUrls(text: string): CredentialUrl[] {
  if (!text.includes("://")) return [];
  const found: CredentialUrl[] = [];
  for (const match of text.matchAll(CREDENTIAL_URL_TOKEN_RE)) {
    const password = match[2] ?? "";
    if (password !== URL_PASSWORD_MASK) found.push({ url: match[0], password });
  }
  return found;
}

/** `text` with the password of every credential URL replaced by `***` (`://user:***@host`). */
export function maskCredentialUrls(text: string): string {
  if (!text.includes("://")) return text;
  return text.replace(CREDENTIAL_URL_RE, (match, head: string, password: string) =>
    password === URL_PASSWORD_MASK ? match : `${head}${URL_PASSWORD_MASK}@`,
  );
}
