/**
 * What may never enter memory, which goes into every future system prompt: text that tries to
 * steer the agent (injection), to send data out (exfiltration), hidden characters, and secrets.
 * Memory is data the user curated, never instructions; this scan keeps a poisoned entry from
 * turning into one. Text is NFKC-normalized first (full-width and compatibility forms), and every
 * pattern is bounded (no backtracking blow-up on long lines). Pure; never throws.
 */
import { redactSecrets } from "../../config/redact.js";

/** Any run of whitespace (newlines included) between two words. */
const S = String.raw`\s+`;
/** Up to a few words in between. */
const GAP = String.raw`(?:\s+\S+){0,6}?\s+`;
const rx = (source: string): RegExp => new RegExp(source, "iu");

const INJECTION: ReadonlyArray<[RegExp, string]> = [
  [rx(`\\b(?:ignore|disregard|forget|override|bypass|skip)${GAP}(?:previous|prior|above|earlier|all|any|your|the|system|safety)${GAP}?(?:instructions?|rules|prompts?|guidelines|directives|guardrails|restrictions)\\b`), "it tries to override instructions"],
  [rx(`\\b(?:you${S}are${S}now|from${S}now${S}on${S}you|new${S}(?:system${S})?instructions?\\s*:|act${S}as${S}(?:an?${S})?(?:unrestricted|jailbroken|admin|root)|pretend${S}(?:to${S}be|you${S}are)|system${S}prompt${S}override|developer${S}mode)`), "it tries to redefine the agent"],
  [rx(`<\\/?\\s*(?:system|assistant|developer|tool|user)\\s*>|\\[\\/?(?:INST|SYS|SYSTEM)\\]|<<\\/?SYS>>|<\\|[a-z_]{2,20}\\|>|<start_of_turn>|<end_of_turn>|^\\s*#{0,4}\\s*(?:system|assistant|developer)\\s*:|\\n\\s*(?:Human|Assistant)\\s*:`), "it contains chat-role markup"],
  [rx(`\\b(?:do${S}not|don't|never)${S}(?:tell|inform|mention|show|reveal)\\b(?:${S}\\S+){0,3}${S}(?:to${S})?the${S}user\\b`), "it asks to hide things from the user"],
  [rx(`\\b(?:pre-?approved|auto-?approve|approve${S}(?:every|all))${GAP}?(?:commands?|edits?|actions?)\\b`), "it claims approvals the user did not give"],
  [rx(`\\b(?:update|edit|modify|append${S}to|write${S}to)${S}(?:AGENTS\\.md|CLAUDE\\.md|\\.cursorrules|SOUL\\.md|config\\.yaml|\\.hermes)`), "it asks to change the agent's own instructions or settings"],
  [rx(`<!--[\\s\\S]{0,2048}?-->|display\\s*:\\s*none|visibility\\s*:\\s*hidden`), "it hides text in markup"],
  [rx(`\\b(?:print|output|reveal|repeat|dump)${GAP}?(?:the${S})?(?:entire${S}|whole${S}|full${S})?(?:conversation|system${S}prompt|chat${S}history|context${S}window)\\b`), "it asks to leak the conversation"],
];

const EXFILTRATION: ReadonlyArray<[RegExp, string]> = [
  [rx(`\\b(?:curl|wget|nc|ncat|Invoke-WebRequest|iwr|scp|rsync)\\b[^\\n]{0,512}(?:\\$\\(|\`|\\$\\{?[A-Z_]*(?:KEY|TOKEN|SECRET|PASSWORD|CREDENTIALS?)|~\\/\\.ssh|\\.env\\b|id_rsa|\\.aws|\\.netrc)`), "it sends local data or secrets over the network"],
  [rx(`\\b(?:send|post|upload|exfiltrate|forward|copy)\\b[^\\n]{0,80}\\b(?:api[_ ]?keys?|tokens?|credentials|passwords?|secrets?|\\.env|ssh${S}keys?|logs|history|files)\\b[^\\n]{0,80}\\b(?:to|at)${S}(?:https?:\\/\\/|[\\w.-]+\\.[a-z]{2,}\\b)`), "it asks to send data somewhere"],
  [rx(`(?:cat|less|more|head|tail|base64|xxd)\\s[^\\n]{0,80}(?:~\\/\\.ssh\\/|\\.hermes\\/\\.env|\\/\\.env\\b|authorized_keys|id_rsa|id_ed25519)`), "it reads credentials"],
];

/** Zero-width, bidi-control, filler and tag characters: invisible to the user, read by the model. */
const HIDDEN = /[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\u3164\ufeff\uffa0]|[\u{e0000}-\u{e007f}]|[\ufe00-\ufe0f]{2,}|[\u{e0100}-\u{e01ef}]/u;

/** A sentence giving a password in prose ("the db password is hunter2"). */
const PROSE_PASSWORD = /\b(?:password|passphrase|passcode|pin)\s+(?:is|was|=|:)\s+\S{6,}/iu;

/** Longest text scanned; anything longer is refused outright (no entry legitimately is). */
export const MAX_SCAN_CHARS = 65_536;

/** Why `text` may not be stored in memory (a sentence), or undefined when it may. */
export function findThreat(text: string): string | undefined {
  if (text.length > MAX_SCAN_CHARS) return `Refused: the entry is too long to check (${text.length} chars).`;
  if (HIDDEN.test(text)) return "Refused: the entry contains invisible characters.";
  const normalized = text.normalize("NFKC");
  for (const [pattern, why] of [...INJECTION, ...EXFILTRATION]) if (pattern.test(normalized)) return `Refused: ${why}; memory holds facts, not instructions.`;
  if (redactSecrets(normalized) !== normalized || PROSE_PASSWORD.test(normalized)) {
    return "Refused: the entry looks like it contains a secret (an API key, token or password); secrets never go into memory.";
  }
  return undefined;
}
