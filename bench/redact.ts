/**
 * Cost of masking tool output (`redactRegisteredSecrets`) on 1 MB of text, with 5, 20 and 50
 * registered secrets: ordinary source text, a wrapped base64 dump and a wrapped `xxd -p` dump
 * (both worst cases: one long run of encoded characters). Prints the median of 9 runs per case.
 *
 *   npx tsx bench/redact.ts
 */
import { randomBytes } from "node:crypto";
import { clearRegisteredSecrets, redactRegisteredSecrets, registerSecret } from "../src/config/redact.js";
import { median } from "./stats.js";

const MB = 1 << 20;
const wrapLines = (text: string, width: number): string => text.replace(new RegExp(`(.{${width}})`, "g"), "$1\n");

function sourceText(): string {
  let text = "";
  while (text.length < MB) text += "const value = someFunction(argument, 42); // a comment with words in it\n";
  return text;
}

const inputs: Record<string, string> = {
  "source text": sourceText(),
  "base64 dump (76 cols)": wrapLines(randomBytes((MB * 3) / 4).toString("base64"), 76),
  "xxd -p dump (60 cols)": wrapLines(randomBytes(MB / 2).toString("hex"), 60),
};

function time(text: string): number {
  const runs: number[] = [];
  for (let i = 0; i < 9; i++) {
    const start = performance.now();
    redactRegisteredSecrets(text);
    runs.push(performance.now() - start);
  }
  return median(runs);
}

for (const count of [5, 20, 50]) {
  clearRegisteredSecrets();
  for (let i = 0; i < count; i++) registerSecret(`sk-or-v1-${randomBytes(24).toString("hex")}`);
  const compileStart = performance.now();
  redactRegisteredSecrets("x");
  const compile = performance.now() - compileStart;
  const cells = Object.entries(inputs).map(([name, text]) => `${name} ${time(text).toFixed(1)} ms`);
  process.stdout.write(`${count} secrets: compile ${compile.toFixed(1)} ms; per MB: ${cells.join(", ")}\n`);
}
