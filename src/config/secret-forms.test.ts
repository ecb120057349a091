import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { base64Inner, compileSecretMatcher, encodedForms, reversed } from "./secret-forms.js";

const SECRET = "sk-or-v1-0123456789abcdef0123456789abcdef";
const OTHER = "postgres://app:hunter2hunter2@db.example/app";
const ENV_FILE = `OPENROUTER_API_KEY=${SECRET}\nDATABASE_URL=${OTHER}\nMODEL=some/model-name\n`;

const matcher = compileSecretMatcher([SECRET, OTHER], (secret) => (secret === SECRET ? "sk-or-v1-***" : "<url>"));

/** GNU-style wrapping: `width` characters per line, newline-terminated. */
const wrap = (text: string, width: number): string => `${text.match(new RegExp(`.{1,${width}}`, "g"))?.join("\n") ?? ""}\n`;
/** Every spelling of the two secrets that must be gone from `masked`. */
function leaks(masked: string): string[] {
  const view = masked.replace(/\r?\n|\\n|\d+\|/g, "");
  return [SECRET, OTHER].flatMap((secret) => [secret, reversed(secret), ...encodedForms(secret)]).filter((form) => view.includes(form));
}

describe("base64Inner", () => {
  it("is the part of the encoding that the secret's own bits decide, at each alignment", () => {
    const bytes = Buffer.from(SECRET);
    for (const align of [0, 1, 2] as const) {
      const inner = base64Inner(bytes, align);
      for (const prefix of ["", "a", "ab", "abc", "KEY=", "X"]) {
        if (prefix.length % 3 !== align) continue;
        for (const suffix of ["", "\n", "\nNEXT=1\n", "zz"]) {
          expect(Buffer.from(prefix + SECRET + suffix).toString("base64")).toContain(inner);
        }
      }
      expect(inner.length).toBeGreaterThanOrEqual(Math.floor((SECRET.length * 4) / 3) - 3);
    }
  });
});

describe("compileSecretMatcher", () => {
  it("masks the secret itself with its own mask and the reversed form with ***", () => {
    expect(matcher.mask(`key ${SECRET} end`)).toBe("key sk-or-v1-*** end");
    expect(matcher.mask(`rev ${reversed(SECRET)} end`)).toBe("rev *** end");
    expect(matcher.mask(`url ${OTHER}`)).toBe("url <url>");
  });

  it("masks a secret inside JSON, where its quotes and backslashes are escaped", () => {
    const odd = compileSecretMatcher(['pa"ss\\word-123'], () => "***");
    const json = JSON.stringify({ content: 'PASSWORD=pa"ss\\word-123' });
    expect(JSON.parse(odd.mask(json))).toEqual({ content: "PASSWORD=***" });
  });

  it("masks base64 of an env file (unwrapped, 76-column wrapped, URL-safe) at every alignment", () => {
    for (const prefix of ["", "A", "AB"]) {
      const stream = Buffer.from(prefix + ENV_FILE).toString("base64");
      for (const shown of [stream, wrap(stream, 76), stream.replaceAll("+", "-").replaceAll("/", "_")]) {
        const masked = matcher.mask(shown);
        expect(leaks(masked)).toEqual([]);
        expect(masked).toContain("***");
      }
    }
  });

  it("masks hex in both cases, plain and wrapped at 60 columns (xxd -p)", () => {
    const hex = Buffer.from(ENV_FILE).toString("hex");
    for (const shown of [hex, hex.toUpperCase(), wrap(hex, 60), wrap(hex.toUpperCase(), 60)]) {
      expect(leaks(matcher.mask(shown))).toEqual([]);
    }
  });

  it("keeps the line structure of a wrapped dump and the parts that are not secret", () => {
    const shown = wrap(Buffer.from(ENV_FILE).toString("base64"), 76);
    const masked = matcher.mask(shown);
    expect(masked.split("\n")).toHaveLength(shown.split("\n").length);
    expect(masked.startsWith(Buffer.from("OPENROUTER_API_KEY=").toString("base64").slice(0, 24))).toBe(true);
    expect(masked).toMatch(/\*\*\*\n\*\*\*/);
  });

  it("masks every occurrence in a long wrapped dump of the same secret repeated", () => {
    const stream = Buffer.from(ENV_FILE.repeat(200)).toString("base64");
    const masked = matcher.mask(wrap(stream, 76));
    expect(leaks(masked)).toEqual([]);
    expect(masked.split("\n")).toHaveLength(wrap(stream, 76).split("\n").length);
  });

  it("masks across JSON-escaped line breaks and read_file gutters", () => {
    const lines = wrap(Buffer.from(ENV_FILE).toString("base64"), 76).trimEnd().split("\n");
    const content = JSON.stringify({ content: lines.map((line, i) => `${i + 1}|${line}`).join("\n") });
    const masked = matcher.mask(content);
    expect(leaks(JSON.parse(masked).content as string)).toEqual([]);
    expect(masked).toContain('"content":"1|');
  });

  it("leaves text without secrets untouched, also wrapped base64 of other data", () => {
    const other = wrap(Buffer.from("nothing secret here, just a long enough line of text to wrap".repeat(5)).toString("base64"), 76);
    expect(matcher.mask(other)).toBe(other);
    const prose = "a line\nanother line\n\\n escaped\n";
    expect(matcher.mask(prose)).toBe(prose);
  });

  it("handles long secrets piece by piece", () => {
    const pem = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7".repeat(20);
    const long = compileSecretMatcher([pem], () => "***");
    for (const prefix of ["", "x", "xy"]) {
      const masked = long.mask(wrap(Buffer.from(`${prefix}${pem}\n`).toString("base64"), 76));
      expect(masked.replace(/\n/g, "").match(/[A-Za-z0-9+/=]{220,}/)).toBeNull();
    }
  });

  const tools = (["base64", "xxd", "rev", "basenc"] as const).filter((tool) => existsSync(`/usr/bin/${tool}`));
  it.skipIf(tools.length < 4)("masks what the real base64, basenc, xxd -p and rev print for the env file", () => {
    for (const [command, args] of [
      ["base64", []],
      ["base64", ["-w", "0"]],
      ["basenc", ["--base64url"]],
      ["xxd", ["-p"]],
      ["rev", []],
    ] as const) {
      const printed = execFileSync(command, [...args], { input: ENV_FILE, encoding: "utf8" });
      expect(leaks(matcher.mask(printed)), `${command} ${args.join(" ")}`).toEqual([]);
    }
  });
});
