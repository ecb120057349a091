/**
 * The shell commands a Python script may run itself, for the dangerous-command guard: the command
 * detector reads shell, so a script's `os.system('git push --force')` or
 * `subprocess.run(['rm', '-rf', 'build'])` is found only in its string literals. A courtesy layer
 * like the detector itself (the sandbox is the wall): a command built at run time is not seen.
 */

/** Longest literal looked at; longer ones are data, not commands. */
const MAX_LITERAL_CHARS = 4000;
/** Literals looked at per script. */
const MAX_LITERALS = 500;

type Token = { kind: "string"; value: string } | { kind: "char"; value: string };

/**
 * Candidate commands in `code`: every string literal (escapes decoded simply; f-string fields kept
 * as written), literals Python joins (adjacent ones, `'a' 'b'`) or the script joins with `+`
 * as one string (and each part), and every bracketed list or tuple of string literals joined
 * with spaces (an argv).
 * In source order, without duplicates, at most `MAX_LITERALS`. Pure; never throws.
 */
export function scriptCommands(code: string): string[] {
  const { tokens, parts } = joinLiterals(tokenize(code));
  const found: string[] = [];
  for (let i = 0; i < tokens.length && found.length < MAX_LITERALS; i++) {
    const token = tokens[i]!;
    if (token.kind === "string") found.push(token.value, ...(parts.get(token) ?? []));
    else if (token.value === "[" || token.value === "(") {
      const argv = argvAt(tokens, i + 1, token.value === "[" ? "]" : ")");
      if (argv && argv.length > 1) found.push(argv.join(" "));
    }
  }
  return [...new Set(found.map((text) => text.trim()).filter((text) => text && text.length <= MAX_LITERAL_CHARS))];
}

/**
 * The tokens with each run of string literals that are adjacent or joined by `+` folded into one
 * string token (what Python makes of `'rm' ' -rf /'` and of `'rm' + ' -rf /'`); `parts` gives a
 * folded token's literals.
 */
function joinLiterals(tokens: readonly Token[]): { tokens: Token[]; parts: Map<Token, string[]> } {
  const out: Token[] = [];
  const parts = new Map<Token, string[]>();
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.kind !== "string") {
      out.push(token);
      continue;
    }
    const run = [token.value];
    for (;;) {
      const next = tokens[i + 1];
      const plus = next?.kind === "char" && next.value === "+" ? tokens[i + 2] : undefined;
      if (next?.kind === "string") i += 1;
      else if (plus?.kind === "string") i += 2;
      else break;
      run.push((tokens[i] as Extract<Token, { kind: "string" }>).value);
    }
    const joined: Token = { kind: "string", value: run.join("") };
    out.push(joined);
    if (run.length > 1) parts.set(joined, run);
  }
  return { tokens: out, parts };
}

/** The strings of `'a', 'b', …` followed by `close`, starting at `start`; undefined when anything else is in between. */
function argvAt(tokens: readonly Token[], start: number, close: string): string[] | undefined {
  const argv: string[] = [];
  for (let i = start; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.kind === "string") {
      argv.push(token.value);
      const next = tokens[i + 1];
      if (next?.kind === "char" && next.value === ",") i++;
      else if (!(next?.kind === "char" && next.value === close)) return undefined;
    } else return token.value === close ? argv : undefined;
  }
  return undefined;
}

/** String literals and the other non-blank characters of Python source, comments left out. */
function tokenize(code: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < code.length) {
    const ch = code[i]!;
    if (ch === "#") {
      const end = code.indexOf("\n", i);
      i = end < 0 ? code.length : end;
      continue;
    }
    const prefix = /^(?:[rRbBuUfF]{1,2})?(?=['"])/.exec(code.slice(i, i + 3));
    // A prefix letter ends no identifier (`identifier'x'` is not an r-string).
    const inWord = prefix !== null && prefix[0] !== "" && i > 0 && /\w/.test(code[i - 1]!);
    if (prefix && !inWord) {
      const raw = /[rR]/.test(prefix[0]);
      const open = i + prefix[0].length;
      const quote = code.startsWith(code[open]!.repeat(3), open) ? code[open]!.repeat(3) : code[open]!;
      const literal = readLiteral(code, open + quote.length, quote, raw);
      tokens.push({ kind: "string", value: literal.value });
      i = literal.end;
      continue;
    }
    if (!/\s/.test(ch)) tokens.push({ kind: "char", value: ch });
    i++;
  }
  return tokens;
}

function readLiteral(code: string, start: number, quote: string, raw: boolean): { value: string; end: number } {
  let value = "";
  let i = start;
  while (i < code.length) {
    if (code.startsWith(quote, i)) return { value, end: i + quote.length };
    const ch = code[i]!;
    if (quote.length === 1 && ch === "\n") return { value, end: i };
    if (ch === "\\" && i + 1 < code.length) {
      const next = code[i + 1]!;
      value += raw ? `\\${next}` : next === "n" ? "\n" : next === "t" ? "\t" : next === "0" ? "\0" : next;
      i += 2;
      continue;
    }
    value += ch;
    i++;
  }
  return { value, end: code.length };
}
