/**
 * GNU-style argument parsing shared by the wrappers and the rules. It knows only what it is
 * told: which options take a value. Everything is pure.
 */

export interface ArgSpec {
  /** Short option letters that take a value (`-u root`, `-uroot`). */
  shortValue?: string;
  /** Short option letters whose value, if any, is attached (`sed -i.bak`); they never take the next argument. */
  shortOptionalValue?: string;
  /** Long option names (without `--`) that take a value (`--user root`, `--user=root`). */
  longValue?: readonly string[];
  /** POSIX order: the first operand ends the options (wrappers: what follows is a command). */
  stopAtOperand?: boolean;
}

export interface ParsedArgs {
  /** Short option letters seen (`-rf` gives `r` and `f`). */
  shorts: Set<string>;
  /** Long option names seen, without `--` and without `=value`. */
  longs: Set<string>;
  /** Values of value-taking options, by letter or long name, in order. */
  values: { name: string; value: string }[];
  /** Operands; with `stopAtOperand`, the first operand and everything after it. */
  operands: string[];
}

/** Parses `args`; `--` ends the options; a lone `-` is an operand. Never throws. */
export function parseArgs(args: readonly string[], spec: ArgSpec = {}): ParsedArgs {
  const parsed: ParsedArgs = { shorts: new Set(), longs: new Set(), values: [], operands: [] };
  const shortValue = spec.shortValue ?? "";
  const shortOptionalValue = spec.shortOptionalValue ?? "";
  const longValue = new Set(spec.longValue ?? []);
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === "--") {
      parsed.operands.push(...args.slice(i + 1));
      break;
    }
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
      parsed.longs.add(name);
      if (eq !== -1) parsed.values.push({ name, value: arg.slice(eq + 1) });
      else if (longValue.has(name) && i + 1 < args.length) parsed.values.push({ name, value: args[++i] as string });
      continue;
    }
    if (arg.startsWith("-") && arg.length > 1) {
      for (let k = 1; k < arg.length; k++) {
        const letter = arg[k] as string;
        parsed.shorts.add(letter);
        const attached = arg.slice(k + 1);
        if (shortOptionalValue.includes(letter)) {
          if (attached) parsed.values.push({ name: letter, value: attached });
          break;
        }
        if (!shortValue.includes(letter)) continue;
        if (attached) parsed.values.push({ name: letter, value: attached });
        else if (i + 1 < args.length) parsed.values.push({ name: letter, value: args[++i] as string });
        break;
      }
      continue;
    }
    if (spec.stopAtOperand) {
      parsed.operands.push(...args.slice(i));
      break;
    }
    parsed.operands.push(arg);
  }
  return parsed;
}

/**
 * Non-option words in order (`kubectl -n prod delete pod x` → `delete pod x`), skipping the
 * value of each option `valueOption` matches (given as a separate word; `--opt=value` is one
 * word). `--` ends the options.
 */
export function positionalArgs(args: readonly string[], valueOption: RegExp): string[] {
  const words: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === "--") {
      words.push(...args.slice(i + 1));
      break;
    }
    if (arg.startsWith("-") && arg.length > 1) {
      if (!arg.includes("=") && valueOption.test(arg)) i++;
      continue;
    }
    words.push(arg);
  }
  return words;
}

/** Values given to any of `names` (letters or long names). */
export function optionValues(parsed: ParsedArgs, ...names: string[]): string[] {
  return parsed.values.filter((entry) => names.includes(entry.name)).map((entry) => entry.value);
}

/**
 * Lower-cased basename of a command word: `/usr/bin/RM` → `rm`. Backslashes left inside double
 * quotes (`"r\m"`) are dropped too: a spelling that could mean `rm` is treated as `rm`.
 */
export function commandName(word: string): string {
  const base = word.slice(word.lastIndexOf("/") + 1);
  return base.replace(/\\/g, "").toLowerCase();
}

/** Splits text into whitespace-separated fields (for `env -S`, xargs input). */
export function splitFields(text: string): string[] {
  return text.split(/\s+/).filter((field) => field.length > 0);
}
