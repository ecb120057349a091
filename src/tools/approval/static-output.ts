/**
 * Static evaluation of the few commands whose output obfuscation relies on: `echo`, `printf`,
 * `cat` of a heredoc, `base64 -d`, `xxd -r -p`, `rev`, `which`. It lets the scanner see through
 * `$(echo rm) -rf /`, `eval "$(echo … | base64 -d)"` and `echo … | base64 -d | sh`.
 * Anything it cannot compute exactly is `undefined`; it never guesses.
 */
import { UNKNOWN } from "./normalize.js";
import { parseArgs } from "./argv.js";
import type { SimpleCommand } from "./simple-command.js";

const STDOUT_REDIRECTS = new Set([">", ">>", ">|", "&>", "&>>"]);

/** The command's stdout if it can be computed from its arguments and `command.stdin`. */
export function staticStdout(command: SimpleCommand): string | undefined {
  if (command.args.some((arg) => arg.includes(UNKNOWN))) return undefined;
  if (command.redirects.some((r) => STDOUT_REDIRECTS.has(r.op) && (r.fd === undefined || r.fd === 1))) return undefined;
  const { name, args, stdin } = command;
  switch (name) {
    case "echo":
      return echo(args);
    case "printf":
      return printf(args);
    case "cat":
      return args.every((arg) => arg === "-") ? stdin : undefined;
    case "base64": {
      const parsed = parseArgs(args);
      const decode = parsed.shorts.has("d") || parsed.shorts.has("D") || parsed.longs.has("decode");
      return decode && parsed.operands.length === 0 && stdin !== undefined ? decodeBase64(stdin) : undefined;
    }
    case "xxd": {
      const parsed = parseArgs(args);
      return parsed.shorts.has("r") && parsed.shorts.has("p") && parsed.operands.length === 0 && stdin !== undefined ? decodeHex(stdin) : undefined;
    }
    case "rev":
      return args.length === 0 && stdin !== undefined ? stdin.split("\n").map((line) => [...line].reverse().join("")).join("\n") : undefined;
    case "which":
      return args.length === 1 ? `${args[0]}\n` : undefined;
    case "command":
    case "type":
      return args.length === 2 && /^-[vVP]$/.test(args[0] as string) ? `${args[1]}\n` : undefined;
    default:
      return undefined;
  }
}

function echo(args: string[]): string {
  let newline = true;
  let escapes = false;
  let i = 0;
  for (; i < args.length && /^-[neE]+$/.test(args[i] as string); i++) {
    const flags = args[i] as string;
    if (flags.includes("n")) newline = false;
    if (flags.includes("e")) escapes = true;
  }
  const text = args.slice(i).join(" ");
  return (escapes ? unescapeC(text) : text) + (newline ? "\n" : "");
}

function printf(args: string[]): string | undefined {
  const [format, ...rest] = args;
  if (format === undefined) return undefined;
  if (!format.includes("%")) return unescapeC(format);
  if (/^%s(\\n)?$/.test(format)) return rest.map((arg) => arg + (format.endsWith("\\n") ? "\n" : "")).join("");
  return undefined;
}

function unescapeC(text: string): string {
  return text.replace(/\\(x[0-9a-fA-F]{1,2}|0[0-7]{0,3}|[ntr\\])/g, (_, esc: string) => {
    if (esc.startsWith("x")) return String.fromCharCode(parseInt(esc.slice(1), 16));
    if (esc.startsWith("0")) return String.fromCharCode(parseInt(esc.slice(1) || "0", 8));
    return { n: "\n", t: "\t", r: "\r", "\\": "\\" }[esc] ?? esc;
  });
}

/** Decodes base64 (standard or URL alphabet) to text; undefined when it is not clean text. */
function decodeBase64(encoded: string): string | undefined {
  const compact = encoded.replace(/\s+/g, "");
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(compact) || compact.length === 0) return undefined;
  return asText(Buffer.from(compact, compact.includes("-") || compact.includes("_") ? "base64url" : "base64"));
}

function decodeHex(encoded: string): string | undefined {
  const compact = encoded.replace(/\s+/g, "");
  if (!/^(?:[0-9a-fA-F]{2})+$/.test(compact)) return undefined;
  return asText(Buffer.from(compact, "hex"));
}

function asText(bytes: Buffer): string | undefined {
  const text = bytes.toString("utf8");
  if (text.includes("\ufffd") || /[\u0000-\u0008\u000e-\u001f]/.test(text)) return undefined;
  return text;
}
