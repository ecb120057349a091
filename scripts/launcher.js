// Shared by both bins' entry files (dist/hermes.js, dist/hermes-acp.js: `launch("<bin>")`), so
// no mode depends on the script's file name (npm's Windows .cmd shims run the entry file itself).
// Runs the bundle: hermes.cjs, and each hermes-<hash>.cjs chunk when first required, every one
// through V8's code cache (<file>.cache, made at build time by running start-up and a first turn
// once) so loading skips most parsing and compiling. A missing or rejected cache (another Node
// version) only costs speed, never correctness.
import { readFileSync, writeFileSync } from "node:fs";
import Module, { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Script } from "node:vm";

/** Runs the CLI bundle as `bin` ("hermes" or "hermes-acp") over this process's arguments. */
export function launch(bin) {
  const dir = dirname(fileURLToPath(import.meta.url));
  const nodeRequire = createRequire(join(dir, "hermes.cjs"));
  const cacheOut = process.env.HERMES_CODE_CACHE_OUT;
  /** Loaded bundle files by name, each evaluated once (a cycle sees the exports made so far, as with `require`). */
  const modules = new Map();
  const scripts = [];
  const cacheFile = (name) => join(dir, name.replace(/\.cjs$/, ".cache"));

  /** `require` inside the bundle: its own files (`./hermes-<hash>.cjs`) from this folder, anything else from Node. */
  function bundleRequire(specifier) {
    if (!specifier.startsWith("./")) return nodeRequire(specifier);
    const name = basename(specifier);
    const loaded = modules.get(name);
    if (loaded) return loaded.exports;
    const file = join(dir, name);
    let cachedData;
    try {
      cachedData = readFileSync(cacheFile(name));
    } catch {
      cachedData = undefined;
    }
    const script = new Script(Module.wrap(readFileSync(file, "utf8")), { filename: file, cachedData });
    cachedData = undefined; // V8 has taken what it needs; do not keep the buffer alive for the whole run
    if (cacheOut) scripts.push([name, script]);
    const module = { exports: {} };
    modules.set(name, module);
    script.runInThisContext().call(module.exports, module.exports, bundleRequire, module, file, dir);
    return module.exports;
  }
  bundleRequire.resolve = nodeRequire.resolve;

  if (cacheOut) {
    process.once("exit", () => {
      for (const [name, script] of scripts) writeFileSync(join(cacheOut, name.replace(/\.cjs$/, ".cache")), script.createCachedData());
    });
  }
  bundleRequire("./hermes.cjs").start(bin);
}
