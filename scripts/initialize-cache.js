// The `initialize` answer cache, used by launcher.js before any bundle file is evaluated. An
// `initialize` answer depends only on this build, how the process was started (the terminal-auth
// launch line), config.yaml, $HERMES_HOME/.env, the environment variables that provider detection
// read, and the request's params. The bundle, once it has answered an `initialize` the normal way,
// hands the answer to `store` (with the variables detection read); a later process started the
// same way with the same files and variables answers the same params from the cache at once, and
// the bundle loads after. Anything unexpected (no file, another build, a changed input, unknown
// params, a damaged file) is a miss, which costs nothing but the read. The file holds no input
// itself: a salted fingerprint of the inputs (files, variable values) and the answers (which name
// no secret), mode 0600 like the rest of $HERMES_HOME's private files.
import { isUtf8 } from "node:buffer";
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";

/** Format of the cache file; another value is a miss. */
const FORMAT = 1;
/** How many distinct params (editors) one cache keeps answers for, most recent first. */
const MAX_ANSWERS = 4;
/** Largest cache file read; a real one holds a few KB. */
const MAX_FILE_BYTES = 256 * 1024;
/** Longest first line looked up; a real `initialize` is far shorter. */
const MAX_LINE_BYTES = 64 * 1024;

/**
 * The Hermes home as src/config/paths.ts `hermesHome` finds it: `$HERMES_HOME` (trimmed, a
 * leading `~` expanded, made absolute) when set and non-empty, else `~/.hermes`.
 */
export function launcherHome(env) {
  const configured = env.HERMES_HOME?.trim();
  if (!configured) return join(homedir(), ".hermes");
  if (configured === "~") return homedir();
  if (configured.startsWith("~/") || configured.startsWith("~\\")) return join(homedir(), configured.slice(2));
  return resolve(configured);
}

/** The cache file of `home`. */
export function cacheFile(home) {
  return join(home, "cache", "acp-initialize.json");
}

/** The file's text, or null when it does not exist; undefined when it cannot be read. */
function readText(file) {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    return error && error.code === "ENOENT" ? null : undefined;
  }
}

/**
 * A 53-bit fingerprint (cyrb53) of `text` with `salt`: cheap, no module to load. It detects
 * changes; it is not a security boundary (whoever can write the cache can write config.yaml).
 */
function fingerprint(text, salt) {
  let h1 = 0xdeadbeef ^ salt;
  let h2 = 0x41c6ce57 ^ salt;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}

/** config.yaml's and .env's text (null when absent); undefined when one exists but cannot be read. */
function readFiles(home) {
  const config = readText(join(home, "config.yaml"));
  const dotenv = readText(join(home, ".env"));
  return config === undefined || dotenv === undefined ? undefined : [config, dotenv];
}

/**
 * What the answer depends on besides the params, as one string: the build, the launch, the home,
 * config.yaml and .env, and each named variable's value in `env` as this process got it (null
 * when unset).
 */
function inputs(context, home, files, envNames) {
  const variables = envNames.map((name) => [name, context.env[name] ?? null]);
  return JSON.stringify([context.build, context.launch, home, files, variables]);
}

/** `value` is a plain object (not an array, not null). */
function isRecord(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The cache for this process. `context`: `build` (this build's id), `launch` (the command line
 * that started it, which the terminal-auth answer names), `env` (the environment as the process
 * got it, before $HERMES_HOME/.env is loaded). Never throws.
 */
export function openInitializeCache(context) {
  const home = launcherHome(context.env);
  const file = cacheFile(home);
  // As read before any bundle file runs: what `store` checks the files against.
  const files = readFiles(home);
  let cached;
  try {
    // A regular file of a sane size only: a FIFO or device here must not block or flood start-up.
    const stats = files && statSync(file, { throwIfNoEntry: false });
    const parsed = stats && stats.isFile() && stats.size <= MAX_FILE_BYTES && JSON.parse(readFileSync(file, "utf8"));
    if (isRecord(parsed) && parsed.format === FORMAT && Array.isArray(parsed.envNames) && parsed.envNames.every((name) => typeof name === "string") && Number.isInteger(parsed.salt) && Array.isArray(parsed.answers)) {
      if (fingerprint(inputs(context, home, files, parsed.envNames), parsed.salt) === parsed.inputs) cached = parsed;
    }
  } catch {
    cached = undefined;
  }

  return {
    /** Whether some `initialize` may be answered from the cache: a valid file for these inputs. */
    armed: cached !== undefined,

    /**
     * The answer frame (one line, with its LF) for `line` (the first input line, without its LF),
     * when it is an `initialize` request whose params the cache has an answer for; else undefined.
     */
    answer(line) {
      if (!cached || line.length > MAX_LINE_BYTES || !isUtf8(line)) return undefined;
      let message;
      try {
        message = JSON.parse(Buffer.from(line.buffer, line.byteOffset, line.byteLength).toString("utf8"));
      } catch {
        return undefined;
      }
      if (!isRecord(message) || Object.keys(message).length !== 4) return undefined;
      const { jsonrpc, id, method, params } = message;
      if (jsonrpc !== "2.0" || method !== "initialize" || !isRecord(params)) return undefined;
      if (!(typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id)))) return undefined;
      const key = fingerprint(JSON.stringify(params), cached.salt);
      const hit = cached.answers.find((entry) => isRecord(entry) && entry.params === key && isRecord(entry.result));
      return hit ? { id, frame: `${JSON.stringify({ jsonrpc: "2.0", id, result: hit.result })}\n` } : undefined;
    },

    /**
     * Records `result` as the answer to `params`, given the variables provider detection read
     * (`envNames`), when config.yaml and .env still read as they did when the process started
     * (so the answer was made from them). Atomic (a whole file or none); never throws; returns
     * whether it wrote.
     */
    store({ params, result, envNames }) {
      const temporary = `${file}.${process.pid}.tmp`;
      try {
        const names = [...new Set(envNames)].sort();
        const again = readFiles(home);
        if (!files || !again || again[0] !== files[0] || again[1] !== files[1]) return false;
        const now = inputs(context, home, files, names);
        const sameInputs = cached && cached.envNames.join("\n") === names.join("\n") && fingerprint(now, cached.salt) === cached.inputs;
        const salt = sameInputs ? cached.salt : Math.floor(Math.random() * 0x7fffffff);
        const key = fingerprint(JSON.stringify(params), salt);
        const kept = sameInputs ? cached.answers.filter((entry) => isRecord(entry) && entry.params !== key) : [];
        const next = { format: FORMAT, salt, envNames: names, inputs: fingerprint(now, salt), answers: [{ params: key, result }, ...kept].slice(0, MAX_ANSWERS) };
        mkdirSync(join(home, "cache"), { recursive: true, mode: 0o700 });
        writeFileSync(temporary, `${JSON.stringify(next)}\n`, { mode: 0o600 });
        renameSync(temporary, file);
        cached = next;
        return true;
      } catch {
        try {
          rmSync(temporary, { force: true });
        } catch {
          // Left behind; the next store writes over it.
        }
        return false;
      }
    },
  };
}
