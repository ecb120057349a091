/**
 * What may never enter memory, which goes into every future system prompt: text that tries to
 * steer the agent (injection), to send data out (exfiltration), hidden characters, and secrets.
 * Memory is data the user curated, never instructions; this scan keeps a poisoned entry from
 * turning into one. Pure; never throws.
 */
import { redactSecrets } from "../../config/redact.js";

const INJECTION: ReadonlyArray<[RegExp, string]> = [
  [/\b(?:ignore|disregard|forget|override)\b[^\n]{0,40}\b(?:previous|prior|above|earlier|all|your|the|system)\b[^\n]{0,20}\b(?:instructions?|rules|prompts?|guidelines|directives)\b/i, "it tries to override instructions"],
  [/\b(?:you are now|from now on you (?:are|must|will)|new (?:system )?instructions?:|act as (?:an? )?(?:unrestricted|jailbroken))/i, "it tries to redefine the agent"],
  [/<\/?\s*(?:system|assistant|developer|tool)\s*>|\[\/?(?:INST|SYS)\]|<\|im_(?:start|end)\|>/i, "it contains chat-role markup"],
  [/\b(?:do not|don't|never) (?:tell|inform|mention to|show) the user\b/i, "it asks to hide things from the user"],
];

const EXFILTRATION: ReadonlyArray<[RegExp, string]> = [
  [/\b(?:curl|wget|nc|ncat|Invoke-WebRequest|iwr)\b[^\n]*(?:\$\(|`|\$\{?[A-Z_]*(?:KEY|TOKEN|SECRET|PASSWORD)|~\/\.ssh|\.env\b|id_rsa)/i, "it sends local data or secrets over the network"],
  [/\b(?:send|post|upload|exfiltrate|forward)\b[^\n]{0,60}\b(?:api[_ ]?keys?|tokens?|credentials|passwords?|secrets?|\.env|ssh keys?)\b[^\n]{0,60}\b(?:to|at)\b/i, "it asks to send credentials somewhere"],
];

/** Zero-width, bidi-control and tag characters: invisible to the user, read by the model. */
const HIDDEN = /[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]|[\u{e0000}-\u{e007f}]/u;

/** Longest text scanned; anything longer is refused outright (no entry legitimately is). */
export const MAX_SCAN_CHARS = 65_536;

/** Why `text` may not be stored in memory (a sentence), or undefined when it may. */
export function findThreat(text: string): string | undefined {
  if (text.length > MAX_SCAN_CHARS) return `Refused: the entry is too long to check (${text.length} chars).`;
  if (HIDDEN.test(text)) return "Refused: the entry contains invisible characters.";
  for (const [pattern, why] of [...INJECTION, ...EXFILTRATION]) if (pattern.test(text)) return `Refused: ${why}; memory holds facts, not instructions.`;
  if (redactSecrets(text) !== text) return "Refused: the entry looks like it contains a secret (an API key, token or password); secrets never go into memory.";
  return undefined;
}
