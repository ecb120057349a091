/**
 * Groups lexer tokens into pipelines of raw simple commands. Control operators (`;`, `&&`,
 * `||`, `&`, newlines, subshell parentheses) end a pipeline; `|` and `|&` join commands into
 * one. Reserved words (`if`, `then`, `do`, `!`, `{`, …) in command position are skipped so the
 * word after them is the command; the headers of `for`, `select` and `case` are not commands.
 * Function definitions (`name() { … }`, `function name { … }`) are tracked so each command
 * knows the function body it sits in.
 */
import { isBareWord, literalText, type RawRedirect, type Token, type Word } from "./lexer.js";

export interface RawCommand {
  words: Word[];
  redirects: RawRedirect[];
  inFunction?: string;
}

export interface RawPipeline {
  commands: RawCommand[];
  background: boolean;
}

const SKIPPED_KEYWORDS = new Set(["if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!", "esac", "coproc"]);
const HEADER_KEYWORDS = new Set(["for", "select", "case"]);

interface OpenFunction {
  name: string;
  /** Brace depth inside the body; 0 while waiting for the opening `{`. */
  depth: number;
}

/** Splits tokens into pipelines. Never throws; unbalanced input yields what could be read. */
export function groupTokens(tokens: readonly Token[]): RawPipeline[] {
  const pipelines: RawPipeline[] = [];
  const functions: OpenFunction[] = [];
  let pipeline: RawPipeline = { commands: [], background: false };
  let command: RawCommand = { words: [], redirects: [] };
  let inHeader = false;

  const endCommand = (): void => {
    if (command.words.length > 0 || command.redirects.length > 0) pipeline.commands.push(command);
    command = { words: [], redirects: [] };
    inHeader = false;
  };
  const endPipeline = (background: boolean): void => {
    endCommand();
    if (pipeline.commands.length > 0) pipelines.push({ commands: pipeline.commands, background });
    pipeline = { commands: [], background: false };
  };

  for (let t = 0; t < tokens.length; t++) {
    const token = tokens[t] as Token;
    if (token.type === "op") {
      if (token.op === "|" || token.op === "|&") endCommand();
      else endPipeline(token.op === "&");
      continue;
    }
    if (token.type === "redirect") {
      command.redirects.push(token.redirect);
      continue;
    }
    if (inHeader) continue;
    const atCommandStart = command.words.length === 0;
    const keyword = atCommandStart && isBareWord(token.word) ? literalText(token.word) : undefined;
    if (keyword !== undefined && SKIPPED_KEYWORDS.has(keyword)) continue;
    if (keyword !== undefined && HEADER_KEYWORDS.has(keyword)) {
      inHeader = true;
      continue;
    }
    if (keyword === "{") {
      const open = functions[functions.length - 1];
      if (open) open.depth++;
      continue;
    }
    if (keyword === "}") {
      const open = functions[functions.length - 1];
      if (open && --open.depth <= 0) functions.pop();
      continue;
    }
    if (keyword === "function") {
      const next = tokens[t + 1];
      if (next?.type === "word") {
        functions.push({ name: literalText(next.word) ?? "", depth: 0 });
        t += isEmptyParens(tokens, t + 2) ? 3 : 1;
      }
      continue;
    }
    if (atCommandStart && isEmptyParens(tokens, t + 1)) {
      functions.push({ name: literalText(token.word) ?? "", depth: 0 });
      t += 2;
      continue;
    }
    if (atCommandStart) {
      const open = functions[functions.length - 1];
      if (open && open.depth > 0) command.inFunction = open.name;
    }
    command.words.push(token.word);
  }
  endPipeline(false);
  return pipelines;
}

function isEmptyParens(tokens: readonly Token[], at: number): boolean {
  const open = tokens[at];
  const close = tokens[at + 1];
  return open?.type === "op" && open.op === "(" && close?.type === "op" && close.op === ")";
}
