// Shared by both bins' entry files (dist/hermes.js, dist/hermes-acp.js: `launch("<bin>")`), so
// no mode depends on the script's file name (npm's Windows .cmd shims run the entry file itself).
// Runs the bundle (hermes.cjs) through V8's code cache (hermes.cache, made at build time by
// running start-up once) so start-up skips most parsing and compiling. A missing or rejected
// cache (another Node version) only costs speed, never correctness.
import { readFileSync, writeFileSync } from "node:fs";
import Module, { createRequire } from "node:module";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { Script } from "node:vm";

/** Runs the CLI bundle as `bin` ("hermes" or "hermes-acp") over this process's arguments. */
export function launch(bin) {
  const bundle = fileURLToPath(new URL("./hermes.cjs", import.meta.url));
  const cacheFile = fileURLToPath(new URL("./hermes.cache", import.meta.url));
  let cachedData;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  const script = new Script(Module.wrap(readFileSync(bundle, "utf8")), { filename: bundle, cachedData });
  cachedData = undefined; // V8 has taken what it needs; do not keep the buffer alive for the whole run
  const cacheOut = process.env.HERMES_CODE_CACHE_OUT;
  if (cacheOut) process.once("exit", () => writeFileSync(cacheOut, script.createCachedData()));
  const module = { exports: {} };
  script.runInThisContext().call(module.exports, module.exports, createRequire(bundle), module, bundle, dirname(bundle));
  module.exports.start(bin);
}
