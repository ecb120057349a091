// Shared by both bins' entry files (dist/hermes.js, dist/hermes-acp.js: `launch("<bin>")`), so
// no mode depends on the script's file name (npm's Windows .cmd shims run the entry file itself).
// Runs the bundle: hermes.cjs, and each hermes-<hash>.cjs chunk when first required, every one
// through V8's code cache (<file>.cache, made at build time by running start-up and a first turn
// once) so loading skips most parsing and compiling. A missing, damaged or rejected cache
// (another Node version) only costs speed, never correctness: V8 checks each cache's checksum
// (off by default in release builds, which then run a damaged cache's bytecode or crash). A
// missing or changed bundle file stops the process at start, naming it, before anything is served.
import { readFileSync, statSync, writeFileSync } from "node:fs";
import Module, { createRequire } from "node:module";
import { Readable } from "node:stream";
import { basename, dirname, join, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { setFlagsFromString } from "node:v8";
import { Script } from "node:vm";
import { openInitializeCache } from "./initialize-cache.js";

/** This build's id, written in by the build (the initialize cache's answers are this build's only). */
const BUILD_ID = "__HERMES_BUILD_ID__";

/** Runs the CLI bundle as `bin` ("hermes" or "hermes-acp") over this process's arguments. */
export function launch(bin) {
  const dir = dirname(fileURLToPath(import.meta.url));
  const nodeRequire = createRequire(inDir(dir, "hermes.cjs"));
  const cacheOut = process.env.HERMES_CODE_CACHE_OUT;
  /** Loaded bundle files by name, each evaluated once (a cycle sees the exports made so far, as with `require`). */
  const modules = new Map();
  const scripts = [];
  const cacheFile = (name) => inDir(dir, name.replace(/\.cjs$/, ".cache"));
  checkInstall(dir);

  /** `require` inside the bundle: its own files (`./hermes-<hash>.cjs`) from this folder, anything else from Node. */
  function bundleRequire(specifier) {
    if (!specifier.startsWith("./")) return nodeRequire(specifier);
    const name = basename(specifier);
    const loaded = modules.get(name);
    if (loaded) return loaded.exports;
    const file = inDir(dir, name);
    let cachedData;
    try {
      cachedData = readFileSync(cacheFile(name));
    } catch {
      cachedData = undefined;
    }
    let script;
    try {
      const source = Module.wrap(readFileSync(file, "utf8"));
      script = underBundleFlags(() => new Script(source, { filename: file, cachedData }));
    } catch (error) {
      throw damaged(file, error instanceof Error ? error.message : String(error));
    }
    cachedData = undefined; // V8 has taken what it needs; do not keep the buffer alive for the whole run
    if (cacheOut) scripts.push([name, script]);
    const module = { exports: {} };
    modules.set(name, module);
    try {
      script.runInThisContext().call(module.exports, module.exports, bundleRequire, module, file, dir);
    } catch (error) {
      // As with `require`: a file whose evaluation threw is evaluated again when next required,
      // never handed out half-made.
      modules.delete(name);
      throw error;
    }
    return module.exports;
  }
  bundleRequire.resolve = nodeRequire.resolve;

  if (cacheOut) {
    process.once("exit", () => {
      underBundleFlags(() => {
        for (const [name, script] of scripts) writeFileSync(join(cacheOut, name.replace(/\.cjs$/, ".cache")), script.createCachedData());
      });
    });
  }
  const run = (launch) => bundleRequire("./hermes.cjs").start(bin, { initializeCache: cache, ...launch });
  // The environment as this process got it, before the bundle loads $HERMES_HOME/.env into it.
  const env = { ...process.env };
  // Signals are held from before the cache file is read, so that none from there on ends the
  // process before the server has decided its exit (one arriving just after that read once did);
  // not during the reads of config.yaml and .env, so that one blocking (a FIFO) can still be ended.
  let hold;
  const cache = servesAcp(bin, process.argv.slice(2))
    ? openInitializeCache({ build: BUILD_ID, launch: [process.execPath, process.argv[1] ?? "", bin], env, inputsRead: () => (hold = holdSignals()) })
    : undefined;
  if (cache?.armed && hold) answerFromCache(cache, run, hold);
  else run(hold ? { signals: hold.signals } : {});
}

/** The signals the ACP server handles (src/cli/acp-command.ts). */
const SIGNALS = ["SIGTERM", "SIGINT", "SIGHUP"];

/** Whether this command line serves ACP on stdio (no flags): `hermes acp`, `hermes-acp`, `hermes-acp acp`. */
function servesAcp(bin, args) {
  if (bin === "hermes-acp") return args.length === 0 || (args.length === 1 && args[0] === "acp");
  return args.length === 1 && args[0] === "acp";
}

/**
 * From now on SIGTERM, SIGINT and SIGHUP are held instead of ending the process, until the bundle
 * has its own handlers: `signals.release()` stops holding and answers the first one held, which
 * the server then handles as if just received (it decides the exit). `onFirst(callback)` runs
 * `callback` at the first signal held (at once if one already was).
 */
function holdSignals() {
  let held;
  let whenHeld = () => undefined;
  const onSignal = (signal) => {
    if (held !== undefined) return;
    held = signal;
    whenHeld();
  };
  for (const signal of SIGNALS) process.on(signal, onSignal);
  return {
    signals: {
      release() {
        for (const signal of SIGNALS) process.off(signal, onSignal);
        return held;
      },
    },
    onFirst(callback) {
      whenHeld = callback;
      if (held !== undefined) callback();
    },
  };
}

/**
 * Reads stdin up to its first line end; when the cache answers that line, writes the answer and
 * runs the bundle told which request it answered, else runs it as usual. Either way stdin is
 * handed on paused, with every byte read put back in front (or, when the input already ended, as
 * a stream of those bytes). A signal held meanwhile (`hold`) stops the wait: the bundle runs, and
 * its server handles that signal once its handlers are in place.
 */
function answerFromCache(cache, run, hold) {
  const stdin = process.stdin;
  const chunks = [];
  let length = 0;
  let done = false;
  const early = {};
  const finish = (how, answered) => {
    if (done) return;
    done = true;
    stdin.off("data", onData);
    stdin.off("end", onEnd);
    stdin.off("error", onError);
    const consumed = Buffer.concat(chunks, length);
    if (how === "end") early.input = Readable.from(length > 0 ? [consumed] : [], { objectMode: false });
    else if (how === "line") {
      stdin.pause();
      if (length > 0) stdin.unshift(consumed);
    }
    if (answered !== undefined) early.answered = answered;
    run({ early, signals: hold.signals });
  };
  const onData = (chunk) => {
    const newline = chunk.indexOf(0x0a);
    chunks.push(chunk);
    length += chunk.length;
    if (newline === -1) {
      if (length > 64 * 1024) finish("line");
      return;
    }
    const all = Buffer.concat(chunks, length);
    let line = all.subarray(0, length - chunk.length + newline);
    if (line.length > 0 && line[line.length - 1] === 0x0d) line = line.subarray(0, -1);
    const hit = cache.answer(line);
    if (hit) {
      // A closed stdout is the server's to report once it runs (as its own output error).
      process.stdout.once("error", (error) => (early.outputError ??= error));
      process.stdout.write(hit.frame);
    }
    finish("line", hit?.id);
  };
  const onEnd = () => finish("end");
  const onError = () => finish("error");
  hold.onFirst(() => finish("line"));
  stdin.on("error", onError);
  stdin.on("end", onEnd);
  stdin.on("data", onData);
}

/** Left on for the whole run when the command line turns it on. */
const CHECKSUMS_FROM_COMMAND_LINE = process.execArgv.some((arg) => /^--verify[-_]snapshot[-_]checksum$/.test(arg));

/**
 * `body` (compiling a bundle file, or writing the caches at build time) with V8 checking each
 * code cache's checksum (`--verify-snapshot-checksum`), then V8's defaults again. V8 stamps a code
 * cache with a hash of the flags it was made under and rejects it under any others, and Node's own
 * modules carry caches made under the defaults: with the flag left on, each one Node loads later
 * (http, crypto, streams...) would be compiled from its source instead (~4x slower).
 */
function underBundleFlags(body) {
  if (CHECKSUMS_FROM_COMMAND_LINE) return body();
  setFlagsFromString("--verify-snapshot-checksum");
  try {
    return body();
  } finally {
    setFlagsFromString("--no-verify-snapshot-checksum");
  }
}

/**
 * Every bundle file the build wrote (hermes.files.json: name → bytes) is there with its size;
 * otherwise exits 1 with one line naming the file, before the agent answers anything.
 */
function checkInstall(dir) {
  const listing = inDir(dir, "hermes.files.json");
  let files;
  try {
    files = JSON.parse(readFileSync(listing, "utf8"));
  } catch (error) {
    fail(damaged(listing, error instanceof Error ? error.message : String(error)));
  }
  for (const [name, bytes] of Object.entries(files)) {
    const file = inDir(dir, name);
    let size;
    try {
      size = statSync(file).size;
    } catch {
      fail(damaged(file, "missing"));
    }
    if (size !== bytes) fail(damaged(file, `${size} bytes, the build wrote ${bytes}`));
  }
}

/**
 * `name` (a file name the build wrote, no separators) in the folder `dir` (absolute, as
 * `dirname` gives it). Plain concatenation: `path.join` normalizes the whole path on each of the
 * ~130 calls of a start-up, enough to get Node's path functions optimized by TurboFan, whose first
 * use costs ~4 MB of resident memory.
 */
function inDir(dir, name) {
  return dir.endsWith(sep) ? dir + name : dir + sep + name;
}

function damaged(file, why) {
  return new Error(`the installation is damaged: cannot load ${file} (${why}); reinstall hermes-acp`);
}

function fail(error) {
  process.stderr.write(`hermes: ${error.message}\n`);
  process.exit(1);
}
