/**
 * Shape of a caught corpus entry. Every entry is checked without the sandbox (strict, the
 * default) for exactly `kind` and `key`; with `sandboxed: true` it must get the same verdict with
 * the keys of `unsandboxed-rules.ts` removed (no verdict when nothing is left).
 * `key` is the exact pattern key; combined verdicts join keys with `+` in rule-table order.
 */
export interface CaughtCase {
  command: string;
  kind: "hardline" | "dangerous";
  key: string;
}

export const h = (command: string, key: string): CaughtCase => ({ command, kind: "hardline", key });
export const d = (command: string, key: string): CaughtCase => ({ command, kind: "dangerous", key });
