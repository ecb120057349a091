/**
 * Turns lexed words into argv fields the way a shell would, as far as that is known statically:
 * known variables are substituted (`$HOME` is `~`), `$0`, `$1…` take the positional parameters of
 * an `sh -c` payload, command substitutions take their static output when there is one and
 * `UNKNOWN` otherwise, and unquoted expansions are split into fields (`$CMD` holding `rm -rf`
 * becomes two words). Unknown variables stay as written (`$DIR`), so a path rule sees them.
 */
import { UNKNOWN } from "./normalize.js";
import type { Word, WordPart } from "./lexer.js";

export interface ResolveContext {
  /** Variables assigned earlier in the same script. */
  vars: ReadonlyMap<string, string>;
  /** `$0`, `$1…$9` (`$@`, `$*` are `$1…`); empty at the top level. */
  positional: readonly string[];
  /**
   * Scans the source of a `$(…)`, backtick or `<(…)` (the commands run, so the caller records
   * them) and returns its static output, if known.
   */
  substitute(source: string): string | undefined;
}

/** The path a process substitution expands to. */
const PROCESS_SUBSTITUTION_PATH = "/dev/fd/63";

/**
 * Resolves a word to fields. With `split` false (assignments, heredoc bodies, here-strings)
 * the result is always one field.
 */
export function resolveWord(word: Word, ctx: ResolveContext, split = true): string[] {
  if (word.processSubstitution !== undefined) {
    ctx.substitute(word.processSubstitution);
    return [PROCESS_SUBSTITUTION_PATH];
  }
  const fields: string[] = [];
  let current = "";
  let started = false;
  const appendExpansion = (value: string, quoted: boolean): void => {
    if (quoted || !split) {
      current += value;
      started = true;
      return;
    }
    value.split(/[ \t\n]+/).forEach((piece, index) => {
      if (index > 0 && started) {
        fields.push(current);
        current = "";
        started = false;
      }
      if (piece) {
        current += piece;
        started = true;
      }
    });
  };
  for (const part of word.parts) {
    if (part.kind === "text") {
      current += part.text;
      started = true;
    } else if (part.kind === "var") {
      appendExpansion(variableValue(part, ctx), part.quoted);
    } else {
      const output = ctx.substitute(part.source);
      appendExpansion(output === undefined ? UNKNOWN : output.replace(/\n+$/, ""), part.quoted);
    }
  }
  if (started) fields.push(current);
  return split ? fields : [fields.join(" ")];
}

/** True when the word is a `NAME=value` assignment (the name written bare). */
export function isAssignmentWord(word: Word): boolean {
  const first = word.parts[0];
  return first?.kind === "text" && !first.quoted && /^[A-Za-z_][A-Za-z0-9_]*=/.test(first.text);
}

function variableValue(part: Extract<WordPart, { kind: "var" }>, ctx: ResolveContext): string {
  const { name } = part;
  if (name === "HOME") return "~";
  const known = ctx.vars.get(name);
  if (known !== undefined) return known;
  if (name === "0") return ctx.positional[0] ?? part.raw;
  if (/^[1-9]$/.test(name)) return ctx.positional[Number(name)] ?? "";
  if (name === "@" || name === "*") return ctx.positional.slice(1).join(" ");
  return part.raw;
}
