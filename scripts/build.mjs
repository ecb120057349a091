// Builds dist/: hermes.cjs (the whole CLI bundled into one minified file, native modules
// external), one entry file per bin (hermes.js, hermes-acp.js: each calls launcher.js's
// `launch("<bin>")`, which loads hermes.cjs with V8's code cache), and hermes.cache (that cache,
// produced by running start-up once: initialize + session/new). Modules reached through
// `import()` are evaluated on first use only.
import { spawn } from "node:child_process";
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { build } from "esbuild";
import { lazyZodSchemas } from "./lazy-zod-schemas.mjs";

/** Output folder; `HERMES_DIST_DIR` builds elsewhere (parallel work must not pull dist/ from under a test run). */
const out = process.env.HERMES_DIST_DIR ?? "dist";
const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));

/**
 * zod re-exports every locale (~250 KB minified) through `z.locales`; nothing here uses any but
 * the default English one, so the bundle gets a locales index holding only `en`.
 */
const zodEnglishOnly = {
  name: "zod-english-only",
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) => {
      if (!/[\\/]zod[\\/]v4[\\/](classic|core)$/.test(args.resolveDir)) return undefined;
      return { path: join(dirname(args.resolveDir), "locales", "en-only.js"), namespace: "zod-locales" };
    });
    pluginBuild.onLoad({ filter: /.*/, namespace: "zod-locales" }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(join(dirname(args.path), "en.js"))};`,
      resolveDir: dirname(args.path),
    }));
  },
};

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
await build({
  entryPoints: ["src/cli/main.ts"],
  outfile: join(out, "hermes.cjs"),
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node20",
  minify: process.env.HERMES_BUILD_MINIFY !== "0",
  sourcemap: "linked",
  legalComments: "none",
  // Native modules stay outside. (Leaving the MCP and Anthropic SDKs outside too would need their
  // `import()` to work inside the launcher's vm.Script, which Node 20 allows only behind a flag;
  // bundled, they are evaluated on first use anyway and cost no measurable start-up time.)
  external: ["better-sqlite3"],
  plugins: [zodEnglishOnly, lazyZodSchemas],
  define: { __HERMES_VERSION__: JSON.stringify(pkg.version), "import.meta.url": "__hermesImportMetaUrl" },
  banner: { js: 'var __hermesImportMetaUrl = require("node:url").pathToFileURL(__filename).href;' },
  logLevel: "warning",
});
assertAscii(join(out, "hermes.cjs"));
copyFileSync("scripts/launcher.js", join(out, "launcher.js"));
/** The bins of package.json, each with its own entry file: no mode depends on the file's name. */
const BINS = ["hermes", "hermes-acp"];
for (const bin of BINS) {
  const entry = join(out, `${bin}.js`);
  writeFileSync(entry, `#!/usr/bin/env node\n// The ${bin} bin. Everything else is in launcher.js and hermes.cjs.\nimport { launch } from "./launcher.js";\n\nlaunch(${JSON.stringify(bin)});\n`);
  chmodSync(entry, 0o755);
}
await writeCodeCache();

/**
 * The bundle must be pure ASCII: V8 then keeps its source (held for the whole run, for lazy
 * compilation) as a one-byte string; one non-ASCII character (esbuild leaves them in regular
 * expression literals) makes it two-byte, ~2 MB more resident memory. Write such characters as
 * `\u` escapes in the source.
 */
function assertAscii(file) {
  const text = readFileSync(file, "latin1");
  const at = text.search(/[^\x00-\x7f]/);
  if (at >= 0) throw new Error(`${file} is not ASCII at offset ${at}: ${JSON.stringify(text.slice(Math.max(0, at - 40), at + 20))} (write the character as a \\u escape)`);
}

/** Runs initialize + session/new once through the launcher, which writes the code cache on exit. */
async function writeCodeCache() {
  const home = mkdtempSync(join(tmpdir(), "hermes-build-"));
  writeFileSync(join(home, "config.yaml"), "model:\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\n  default: warmup\n");
  const child = spawn(process.execPath, [join(out, "hermes-acp.js")], {
    env: { ...process.env, HERMES_HOME: home, HERMES_CODE_CACHE_OUT: join(out, "hermes.cache") },
    stdio: ["pipe", "pipe", "ignore"],
  });
  const frames = [
    { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } },
    { jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd: home, mcpServers: [] } },
  ];
  let answered = 0;
  let buffered = "";
  child.stdout.on("data", (chunk) => {
    buffered += chunk;
    const lines = buffered.split("\n");
    buffered = lines.pop() ?? "";
    answered += lines.filter((line) => line.includes('"id":')).length;
    if (answered === 1) child.stdin.write(JSON.stringify(frames[1]) + "\n");
    if (answered >= 2) child.stdin.end();
  });
  child.stdin.write(JSON.stringify(frames[0]) + "\n");
  const code = await new Promise((resolve) => child.on("exit", resolve));
  rmSync(home, { recursive: true, force: true });
  if (code !== 0 || answered < 2) throw new Error(`code-cache warm-up failed (exit ${code}, ${answered} answers)`);
}
