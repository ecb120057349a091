// The `initialize` answer cache, used by launcher.js before any bundle file is evaluated. An
// `initialize` answer depends only on this build, how the process was started (the terminal-auth
// launch line), config.yaml, $HERMES_HOME/.env, the environment variables that provider detection
// read, and the request itself. The bundle, once it has answered an `initialize` the normal way,
// hands the request line and its answer to `store` (with the variables detection read); a later
// process started the same way, with the same files and variables, that gets the very same line
// answers it from the cache at once, and the bundle loads after. Anything unexpected (no file,
// another build, a changed input, another line, a damaged file) is a miss, which costs nothing but
// the reads. The file holds no input itself: salted fingerprints of the inputs (files, variable
// values) and of the request lines, and the answers (which name no secret), mode 0600.
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";

/** Format of the cache file; another value is a miss. */
const FORMAT = 2;
/** How many distinct request lines (editors) one cache keeps answers for, most recent first. */
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
  if (configured === "~") return resolve(homedir());
  if (configured.startsWith("~/") || configured.startsWith("~\\")) return resolve(join(homedir(), configured.slice(2)));
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
 * What the answer depends on besides the request, as one string: the build, the launch, the home,
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
 * got it, before $HERMES_HOME/.env is loaded), and optionally `inputsRead`, called once
 * config.yaml and .env have been read and before the cache file is. Never throws.
 */
export function openInitializeCache(context) {
  const home = launcherHome(context.env);
  const file = cacheFile(home);
  // As read before any bundle file runs: what `store` checks the files against.
  const files = readFiles(home);
  context.inputsRead?.();
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
     * The stored answer to `line` (the first input line, without its line end) and the id it
     * answers, when a line byte for byte the same was answered before under these inputs; else
     * undefined. Keyed on the raw line, never on a re-serialization of it: only the very text the
     * normal path checked and answered is answered here. Never throws.
     */
    answer(line) {
      if (!cached || line.length > MAX_LINE_BYTES) return undefined;
      try {
        const key = fingerprint(line.toString("latin1"), cached.salt);
        const hit = cached.answers.find((entry) => isRecord(entry) && entry.line === key);
        const frame = hit?.frame;
        if (typeof frame !== "string" || frame.indexOf("\n") !== frame.length - 1) return undefined;
        const message = JSON.parse(frame);
        const id = isRecord(message) ? message.id : undefined;
        if (message.jsonrpc !== "2.0" || !isRecord(message.result) || !(typeof id === "string" || Number.isSafeInteger(id))) return undefined;
        // The answer must be to this request: the server waits for its own answer to that id.
        const request = JSON.parse(line.toString("utf8"));
        if (!isRecord(request) || request.id !== id) return undefined;
        return { id, frame };
      } catch {
        return undefined;
      }
    },

    /**
     * Records `frame` (the answer line, with its LF) as the answer to `line` (the request line as
     * read, without its line end), made from the files of `home` (the bundle's own $HERMES_HOME,
     * which must be the one found here), given the variables provider detection read (`envNames`), when
     * config.yaml and .env still read as they did when the process started (so the answer was
     * made from them). Atomic (a whole file or none); never throws; returns whether it wrote.
     */
    store({ home: answeredIn, line, frame, envNames }) {
      const temporary = `${file}.${process.pid}.tmp`;
      try {
        // An answer made from another home's files must never be keyed on this one's.
        if (answeredIn !== home) return false;
        const names = [...new Set(envNames)].sort();
        const again = readFiles(home);
        if (!files || !again || again[0] !== files[0] || again[1] !== files[1]) return false;
        const now = inputs(context, home, files, names);
        const sameInputs = cached && cached.envNames.join("\n") === names.join("\n") && fingerprint(now, cached.salt) === cached.inputs;
        const salt = sameInputs ? cached.salt : Math.floor(Math.random() * 0x7fffffff);
        const key = fingerprint(Buffer.from(line).toString("latin1"), salt);
        const kept = sameInputs ? cached.answers.filter((entry) => isRecord(entry) && entry.line !== key) : [];
        const next = { format: FORMAT, salt, envNames: names, inputs: fingerprint(now, salt), answers: [{ line: key, frame }, ...kept].slice(0, MAX_ANSWERS) };
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
