/**
 * What may never enter memory, which goes into every future system prompt: text that tries to
 * steer the agent (injection), to send data out (exfiltration), hidden characters, and secrets.
 * Memory is data the user curated, never instructions; this scan keeps a poisoned entry from
 * turning into one. Patterns are matched against the text NFKC-normalized (full-width and
 * compatibility forms) and against its skeleton (accents and other combining marks dropped,
 * Cyrillic and Greek look-alikes read as the Latin letters they show), and every pattern is bounded
 * (no backtracking blow-up on long lines). Pure; never throws.
 */
import { redactRegisteredSecrets, redactSecrets } from "../../config/redact.js";

/** Any run of whitespace (newlines included) between two words. */
const S = String.raw`\s+`;
/** Up to a few words in between. */
const GAP = String.raw`(?:\s+\S+){0,6}?\s+`;
const rx = (source: string): RegExp => new RegExp(source, "iu");

/** How strict a scan is: `memory` (every future prompt carries it) or `skill` (procedures, which quote commands, tokens by name and comments). */
export type ThreatScope = "memory" | "skill";

interface Rule {
  pattern: RegExp;
  why: string;
  /** Scopes the rule applies to; absent = all. */
  only?: ThreatScope;
}

const INJECTION: readonly Rule[] = [
  { pattern: rx(`\\b(?:ignore|disregard|forget|override|bypass|skip)${GAP}(?:previous|prior|above|earlier|all|any|your|the|system|safety)${GAP}?(?:instructions?|rules|prompts?|guidelines|directives|guardrails|restrictions)\\b`), why: "it tries to override instructions" },
  { pattern: rx(`\\b(?:new${S}(?:system${S})?instructions?\\s*:|act${S}as${S}(?:an?${S})?(?:unrestricted|jailbroken|admin|root)|pretend${S}(?:to${S}be|you${S}are)|system${S}prompt${S}override|developer${S}mode)`), why: "it tries to redefine the agent" },
  { pattern: rx(`\\b(?:you${S}are${S}now|from${S}now${S}on${S}you)\\b`), why: "it tries to redefine the agent", only: "memory" },
  { pattern: rx(`\\b(?:you${S}are${S}now|from${S}now${S}on${S}you(?:${S}are)?)${S}(?:an?${S}|the${S}|in${S})?(?:\\S+${S}){0,2}?(?:agent|assistant|model|ai|bot|persona|unrestricted|jailbroken|mode)\\b`), why: "it tries to redefine the agent", only: "skill" },
  { pattern: rx(`<\\/?\\s*(?:system|assistant|developer|tool|user)\\s*>|\\[\\/?(?:INST|SYS|SYSTEM)\\]|<<\\/?SYS>>|<\\|[a-z_]{2,20}\\|>|<start_of_turn>|<end_of_turn>|(?:^|[\\n\\r\\u0085\\u2028\\u2029])\\s*#{0,4}\\s*(?:system|assistant|developer)\\s*:|\\n\\s*(?:Human|Assistant)\\s*:`), why: "it contains chat-role markup" },
  { pattern: rx(`\\b(?:do${S}not|don't|never)${S}(?:tell|inform|mention|show|reveal)\\b(?:${S}\\S+){0,3}${S}(?:to${S})?the${S}user\\b`), why: "it asks to hide things from the user" },
  { pattern: rx(`\\b(?:pre-?approved|auto-?approve|approve${S}(?:every|all))${GAP}?(?:commands?|edits?|actions?)\\b`), why: "it claims approvals the user did not give" },
  { pattern: rx(`\\b(?:update|edit|modify|append${S}to|write${S}to)${S}(?:AGENTS\\.md|CLAUDE\\.md|\\.cursorrules|SOUL\\.md|config\\.yaml|\\.hermes)`), why: "it asks to change the agent's own instructions or settings" },
  { pattern: rx(`<!--[\\s\\S]{0,2048}?-->`), why: "it hides text in markup", only: "memory" },
  { pattern: rx(`display\\s*:\\s*none|visibility\\s*:\\s*hidden`), why: "it hides text in markup" },
  { pattern: rx(`\\b(?:print|output|reveal|repeat|dump)${GAP}?(?:the${S})?(?:entire${S}|whole${S}|full${S})?(?:conversation|system${S}prompt|chat${S}history|context${S}window)\\b`), why: "it asks to leak the conversation" },
];

const SECRET_FILES = String.raw`~\/\.ssh|\.env\b|id_rsa|\.aws|\.netrc`;

const EXFILTRATION: readonly Rule[] = [
  { pattern: rx(`\\b(?:curl|wget|nc|ncat|Invoke-WebRequest|iwr|scp|rsync)\\b[^\\n]{0,512}(?:\\$\\(|\`|\\$\\{?[A-Z_]*(?:KEY|TOKEN|SECRET|PASSWORD|CREDENTIALS?)|${SECRET_FILES})`), why: "it sends local data or secrets over the network", only: "memory" },
  // A skill may name a token variable in a documented request; sending files or command output stays refused.
  { pattern: rx(`\\b(?:curl|wget|nc|ncat|Invoke-WebRequest|iwr|scp|rsync)\\b[^\\n]{0,512}(?:(?:\\$\\(|\`)(?:cat|base64|env|printenv|whoami|hostname|uname|id|ls|find|tar)\\b|[?&][^\\s]*=[^\\s]*(?:\\$\\(|\`)|@(?:~|\\/)[^\\s]*(?:\\.ssh|\\.env|\\.aws|\\.netrc)|${SECRET_FILES})`), why: "it sends local data or secrets over the network", only: "skill" },
  { pattern: rx(`\\b(?:send|post|upload|exfiltrate|forward|copy)\\b[^\\n]{0,80}\\b(?:api[_ ]?keys?|tokens?|credentials|passwords?|secrets?|\\.env|ssh${S}keys?|logs|history|files)\\b[^\\n]{0,80}\\b(?:to|at)${S}(?:https?:\\/\\/|[\\w.-]+\\.[a-z]{2,}\\b)`), why: "it asks to send data somewhere", only: "memory" },
  { pattern: rx(`\\b(?:send|post|upload|exfiltrate|forward)\\b[^\\n]{0,80}\\b(?:api[_ ]?keys?|credentials|passwords?|secrets?|\\.env|ssh${S}keys?|private${S}keys?)\\b[^\\n]{0,80}\\b(?:to|at)${S}(?:https?:\\/\\/|[\\w.-]+\\.[a-z]{2,}\\b)`), why: "it asks to send secrets somewhere", only: "skill" },
  { pattern: rx(`(?:cat|less|more|head|tail|base64|xxd)\\s[^\\n]{0,80}(?:~\\/\\.ssh\\/|\\.hermes\\/\\.env|\\/\\.env\\b|authorized_keys|id_rsa|id_ed25519)`), why: "it reads credentials" },
];

/**
 * Invisible characters the model still reads: every format character (zero-width, bidi controls,
 * soft hyphen, tags, interlinear and musical formatting…), fillers and blank look-alikes
 * (combining grapheme joiner, Hangul and Khmer fillers, Mongolian selectors, the blank braille
 * cell), and runs of variation selectors.
 */
const HIDDEN = /[\p{Cf}\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u2800\u3164\uffa0]|[\ufe00-\ufe0f]{2,}|[\u{e0100}-\u{e01ef}]/u;

/** Cyrillic, Greek and Latin-extension letters that look like a Latin letter, as that letter (for matching only). */
const LOOKALIKES: Readonly<Record<string, string>> = {
  а: "a", ӑ: "a", ԁ: "d", е: "e", ё: "e", һ: "h", і: "i", ї: "i", ј: "j", к: "k", ӏ: "l", м: "m", о: "o", р: "p", ԛ: "q", г: "r", ѕ: "s", т: "t", у: "y", ү: "y", х: "x", с: "c", ԝ: "w", ѵ: "v", ь: "b", в: "b", н: "h", п: "n",
  А: "A", В: "B", С: "C", Е: "E", Н: "H", І: "I", Ј: "J", К: "K", М: "M", О: "O", Р: "P", Ѕ: "S", Т: "T", Х: "X", У: "Y", Ү: "Y", Ԝ: "W", Ԛ: "Q", Ӏ: "I",
  α: "a", β: "b", ε: "e", η: "n", ι: "i", κ: "k", μ: "u", ν: "v", ο: "o", ρ: "p", τ: "t", υ: "u", χ: "x", γ: "y", ω: "w", ς: "c",
  Α: "A", Β: "B", Ε: "E", Ζ: "Z", Η: "H", Ι: "I", Κ: "K", Μ: "M", Ν: "N", Ο: "O", Ρ: "P", Τ: "T", Υ: "Y", Χ: "X",
  ı: "i", ɩ: "i", ɑ: "a", ɡ: "g", ɢ: "G", ʀ: "R", ʏ: "Y", ɴ: "N", ᴅ: "D", ᴇ: "E", ᴏ: "o", ᴛ: "T", ᴜ: "u", ᴠ: "v", ᴡ: "w", ᴢ: "z", ꜱ: "s", ǀ: "l", օ: "o", ս: "u", ց: "g", հ: "h", ո: "n",
};
const LOOKALIKE_RE = new RegExp(`[${Object.keys(LOOKALIKES).join("")}]`, "gu");

/** What `text` reads as: compatibility forms folded, combining marks dropped, look-alike letters as Latin. */
function skeleton(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .replace(LOOKALIKE_RE, (letter) => LOOKALIKES[letter] ?? letter);
}

/** A sentence giving a password in prose ("the db password is hunter2"): the value has a digit or a symbol, so "the password is stored in…" is not one. */
const PROSE_PASSWORD = /\b(?:password|passphrase|passcode|pin)\s+(?:is|was|=|:)\s+(?=\S{6,})(?=\S*?[\d_]|\S*?[^\w\s.,;:!?'"])\S+/iu;

/** Longest text scanned; anything longer is refused outright (no entry legitimately is). */
export const MAX_SCAN_CHARS = 65_536;

/** Why `text` may not be stored in memory (a sentence), or undefined when it may. */
export function findThreat(text: string): string | undefined {
  if (text.length > MAX_SCAN_CHARS) return `Refused: the entry is too long to check (${text.length} chars).`;
  const reason = threatReason(text, "memory");
  if (!reason) return undefined;
  return reason.startsWith("it looks like it contains a secret")
    ? "Refused: the entry looks like it contains a secret (an API key, token or password); secrets never go into memory."
    : reason === "it contains invisible characters"
      ? "Refused: the entry contains invisible characters."
      : `Refused: ${reason}; memory holds facts, not instructions.`;
}

/**
 * The bare reason `text` is refused under `scope` ("it tries to override instructions"), or
 * undefined. Scans at most MAX_SCAN_CHARS (callers window longer text).
 */
export function threatReason(text: string, scope: ThreatScope): string | undefined {
  const window = text.slice(0, MAX_SCAN_CHARS);
  if (HIDDEN.test(window)) return "it contains invisible characters";
  const normalized = window.normalize("NFKC");
  const read = skeleton(window);
  for (const rule of [...INJECTION, ...EXFILTRATION]) {
    if ((!rule.only || rule.only === scope) && (rule.pattern.test(normalized) || rule.pattern.test(read))) return rule.why;
  }
  // a key the agent holds, also when broken up by spaces or line breaks (or split across memory entries, which are read joined)
  const compact = normalized.replace(/\s+/gu, "");
  if (redactSecrets(normalized) !== normalized || redactRegisteredSecrets(compact) !== compact || PROSE_PASSWORD.test(normalized)) {
    return "it looks like it contains a secret (an API key, token or password)";
  }
  return undefined;
}
