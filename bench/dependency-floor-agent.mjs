// The dependency floor of the "cold first answer" and idle-RSS rows in `npm run bench`: the least any Node agent
// built on hermes-acp's libraries does between spawn and the first chunk of a first prompt. It
// answers `initialize` as bench/bare-initialize.mjs does (before loading anything). On
// `session/new` it evaluates the libraries the first answer needs — the ACP SDK, zod, yaml and the
// OpenAI SDK, bundled into one file and code-cached as hermes' own bundle is (dependency-floor.ts
// builds both) — and opens a SQLite database with better-sqlite3, then answers; the prompt is
// served as dependency-floor-serve.cjs says.
//
// `node dependency-floor-agent.mjs <dir>` serves, loading <dir>/deps.cjs with <dir>/deps.cjs.cache;
// `node dependency-floor-agent.mjs <dir> --write-cache` evaluates the bundle once and writes the cache.
// Node's modules beyond its boot set (vm, http, better-sqlite3) load when first needed, as hermes' do.
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const dir = process.argv[2];
if (!dir) throw new Error("usage: dependency-floor-agent.mjs <dir> [--write-cache]");

/** Evaluates the bundled libraries from their code cache (or writes it); answers their exports. */
function loadDependencies(writeCache) {
  const { readFileSync, writeFileSync } = require("node:fs");
  const { join } = require("node:path");
  const { Script } = require("node:vm");
  const { wrap } = require("node:module");
  const file = join(dir, "deps.cjs");
  const cacheFile = `${file}.cache`;
  const script = new Script(wrap(readFileSync(file, "utf8")), { filename: file, cachedData: writeCache ? undefined : readFileSync(cacheFile) });
  if (script.cachedDataRejected) throw new Error(`${cacheFile} was rejected by V8`);
  const module = { exports: {} };
  script.runInThisContext().call(module.exports, module.exports, require, module, file, dir);
  if (writeCache) writeFileSync(cacheFile, script.createCachedData());
  return module.exports;
}

if (process.argv[3] === "--write-cache") {
  loadDependencies(true);
  process.exit(0);
}

require("./dependency-floor-serve.cjs").serve({ loadDependencies: () => loadDependencies(false), require });
