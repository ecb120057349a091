/**
 * The files a simple command writes to: output redirections, `tee`, the destination of
 * `cp`/`mv`/`install`/`ln`/`rsync`/`scp`, files edited in place by `sed -i`/`perl -i`/`ruby -i`,
 * `dd of=`, `truncate`, and `curl -o` / `wget -O`. Sources are never reported, so
 * `cp ~/.ssh/config backup` is not a write to `~/.ssh`.
 */
import { optionValues, parseArgs, type ArgSpec } from "./argv.js";
import type { SimpleCommand } from "./simple-command.js";

const WRITE_REDIRECTS = new Set([">", ">>", ">|", "&>", "&>>", "<>"]);

const COPY_SPECS: Record<string, ArgSpec> = {
  cp: { shortValue: "tS", longValue: ["target-directory", "suffix", "backup", "reflink", "sparse"] },
  mv: { shortValue: "tS", longValue: ["target-directory", "suffix", "backup"] },
  install: { shortValue: "tSmogC", longValue: ["target-directory", "suffix", "mode", "owner", "group"] },
  ln: { shortValue: "tS", longValue: ["target-directory", "suffix", "backup"] },
  rsync: { shortValue: "eTf", longValue: ["rsh", "exclude", "include", "filter", "temp-dir", "rsync-path", "chmod", "chown"] },
  scp: { shortValue: "cFiJloPS", longValue: [] },
};

/** Every path the command writes to, as resolved text. */
export function writeTargets(command: SimpleCommand): string[] {
  const targets: string[] = [];
  for (const redirect of command.redirects) {
    const dup = (redirect.op === ">&" || redirect.op === "<&") && /^(?:\d+-?|-)$/.test(redirect.target);
    if (WRITE_REDIRECTS.has(redirect.op) || (redirect.op === ">&" && !dup)) targets.push(redirect.target);
  }
  const { name, args } = command;
  const copySpec = Object.hasOwn(COPY_SPECS, name) ? COPY_SPECS[name] : undefined;
  if (copySpec) {
    const parsed = parseArgs(args, copySpec);
    const targetDirs = optionValues(parsed, "t", "target-directory");
    if (targetDirs.length > 0) targets.push(...targetDirs);
    else if (parsed.operands.length >= 2) targets.push(parsed.operands[parsed.operands.length - 1] as string);
    return targets;
  }
  switch (name) {
    case "tee":
      targets.push(...parseArgs(args, { longValue: ["output-error"] }).operands);
      break;
    case "truncate":
      targets.push(...parseArgs(args, { shortValue: "sr", longValue: ["size", "reference"] }).operands);
      break;
    case "dd":
      targets.push(...args.filter((arg) => arg.startsWith("of=")).map((arg) => arg.slice(3)));
      break;
    case "sed": {
      const parsed = parseArgs(args, { shortValue: "efl", shortOptionalValue: "i", longValue: ["expression", "file", "line-length"] });
      if (!parsed.shorts.has("i") && ![...parsed.longs].some((long) => long.startsWith("in-place"))) break;
      const scripted = optionValues(parsed, "e", "f", "expression", "file").length > 0;
      targets.push(...(scripted ? parsed.operands : parsed.operands.slice(1)));
      break;
    }
    case "perl":
    case "ruby": {
      const parsed = parseArgs(args, { shortValue: "eEIMr", shortOptionalValue: "i" });
      const scripted = optionValues(parsed, "e", "E").length > 0;
      if (parsed.shorts.has("i")) targets.push(...(scripted ? parsed.operands : parsed.operands.slice(1)));
      break;
    }
    case "curl":
      targets.push(...optionValues(parseArgs(args, { shortValue: "o", longValue: ["output"] }), "o", "output").filter((path) => path !== "-"));
      break;
    case "wget":
      targets.push(...optionValues(parseArgs(args, { shortValue: "O", longValue: ["output-document"] }), "O", "output-document").filter((path) => path !== "-"));
      break;
  }
  return targets;
}

/**
 * The files `cp`/`mv`/`install`/`ln`/`rsync`/`scp` create, as paths: the destination, or
 * `DIR/<source name>` for each source when the destination is a directory (`-t DIR`, several
 * sources, or a destination spelled as one: `.`, `..`, a trailing `/`).
 */
export function copiedFiles(command: SimpleCommand): string[] {
  const copySpec = Object.hasOwn(COPY_SPECS, command.name) ? COPY_SPECS[command.name] : undefined;
  if (!copySpec) return [];
  const parsed = parseArgs(command.args, copySpec);
  const targetDir = optionValues(parsed, "t", "target-directory")[0];
  const sources = targetDir === undefined ? parsed.operands.slice(0, -1) : parsed.operands;
  const dest = targetDir ?? parsed.operands[parsed.operands.length - 1];
  if (dest === undefined || sources.length === 0) return [];
  const isDir = targetDir !== undefined || sources.length > 1 || /(?:^|\/)\.{1,2}$|\/$/.test(dest);
  if (!isDir) return [dest];
  return sources.map((source) => `${dest.replace(/\/+$/, "")}/${source.replace(/\/+$/, "").split("/").pop() ?? ""}`);
}
