// Builds dist/: the CLI bundled and minified into CommonJS files (native modules external):
// hermes.cjs, what start-up evaluates, and hermes-<hash>.cjs chunks, each holding modules reached
// only through `import()` (and what they share), loaded on first use; one entry file per bin
// (hermes.js, hermes-acp.js: each calls launcher.js's `launch("<bin>")`, which loads the files
// through V8's code cache); and one <file>.cache per file that cache covers, produced by running
// start-up and a first turn once (initialize, session/new, one prompt). esbuild splits only ES
// modules, so the bundle is built as ES modules and each output file then turned into CommonJS
// (the launcher runs them as vm scripts, the only kind Node 20 compiles with a code cache).
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { createServer } from "node:http";
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { build, transform } from "esbuild";
import { lazyZodSchemas } from "./lazy-zod-schemas.mjs";
import { sdkFetchGlobals } from "./sdk-fetch-globals.mjs";

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
const minify = process.env.HERMES_BUILD_MINIFY !== "0";
const bundled = await build({
  entryPoints: { hermes: "src/cli/main.ts" },
  outdir: out,
  bundle: true,
  splitting: true,
  write: false,
  platform: "node",
  format: "esm",
  target: "node20",
  outExtension: { ".js": ".cjs" },
  chunkNames: "hermes-[hash]",
  minify,
  legalComments: "none",
  // Native modules stay outside.
  external: ["better-sqlite3"],
  plugins: [zodEnglishOnly, lazyZodSchemas, sdkFetchGlobals],
  define: { __HERMES_VERSION__: JSON.stringify(pkg.version), "import.meta.url": "__hermesImportMetaUrl" },
  logLevel: "warning",
});
/** The bundle's files and their sizes, which the launcher checks before it starts (a damaged install fails at once, by name). */
const files = {};
/** The build's id: a hash of every bundle file as written (the launcher's initialize cache answers for this build only). */
const buildHash = createHash("sha256");
for (const file of bundled.outputFiles) {
  // Imports become `require` (the launcher's, which loads sibling files), `import()` a promise of one.
  const converted = await transform(file.text, {
    format: "cjs",
    loader: "js",
    platform: "node",
    target: "node20",
    minify,
    supported: { "dynamic-import": false },
    // Only the files that read `import.meta.url`: each pathToFileURL normalizes the path, and
    // ~50 files load by a first turn (Node's path functions, once hot, get TurboFan started).
    banner: file.text.includes("__hermesImportMetaUrl") ? 'var __hermesImportMetaUrl = require("node:url").pathToFileURL(__filename).href;' : "",
    logLevel: "warning",
  });
  writeFileSync(file.path, converted.code);
  buildHash.update(basename(file.path)).update("\0").update(converted.code).update("\0");
  assertAscii(file.path);
  files[basename(file.path)] = Buffer.byteLength(converted.code);
}
writeFileSync(join(out, "hermes.files.json"), `${JSON.stringify(files)}\n`);
writeFileSync(join(out, "launcher.js"), readFileSync("scripts/launcher.js", "utf8").replace('"__HERMES_BUILD_ID__"', JSON.stringify(buildHash.digest("hex").slice(0, 16))));
copyFileSync("scripts/initialize-cache.js", join(out, "initialize-cache.js"));
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

/**
 * Runs initialize, session/new, one prompt and a session/load of that session through the
 * launcher against a scripted model on 127.0.0.1 (a streamed read_file call, then a streamed
 * answer), so the cache the launcher writes on exit holds the code of a whole first turn with a
 * tool call, and of reading a stored session back and replaying it, not only of start-up.
 */
async function writeCodeCache() {
  let calls = 0;
  const model = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      if (request.method === "GET") {
        response.writeHead(200, { "content-type": "application/json" });
        response.end(JSON.stringify({ object: "list", data: [{ id: "warmup", object: "model" }] }));
        return;
      }
      response.writeHead(200, { "content-type": "text/event-stream" });
      const chunk = (delta, finish) => ({ id: "warmup", object: "chat.completion.chunk", created: 0, model: "warmup", choices: [{ index: 0, delta, finish_reason: finish }] });
      const call = { index: 0, id: "call_warmup", type: "function", function: { name: "read_file", arguments: JSON.stringify({ path: "notes.txt" }) } };
      const first = (calls += 1) === 1;
      response.write(`data: ${JSON.stringify(chunk(first ? { role: "assistant", content: null, tool_calls: [call] } : { role: "assistant", content: "Ready." }, null))}\n\n`);
      response.write(`data: ${JSON.stringify({ ...chunk({}, first ? "tool_calls" : "stop"), usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } })}\n\n`);
      response.end("data: [DONE]\n\n");
    });
  });
  await new Promise((resolve) => model.listen(0, "127.0.0.1", resolve));
  const home = mkdtempSync(join(tmpdir(), "hermes-build-"));
  writeFileSync(join(home, "config.yaml"), `model:\n  provider: custom\n  base_url: http://127.0.0.1:${model.address().port}/v1\n  default: warmup\n`);
  writeFileSync(join(home, "notes.txt"), "Ready when you are.\n");
  // Without NODE_OPTIONS: a V8 flag in it would stamp the caches with flags a user's run does not have.
  const { NODE_OPTIONS: _options, ...env } = process.env;
  const child = spawn(process.execPath, [join(out, "hermes-acp.js")], {
    env: { ...env, HERMES_HOME: home, HERMES_CODE_CACHE_OUT: out, HERMES_BACKGROUND_REVIEW: "off", HERMES_TITLE_GENERATION: "off" },
    stdio: ["pipe", "pipe", "ignore"],
  });
  const send = (id, method, params) => child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
  let answered = 0;
  let sessionId;
  let buffered = "";
  child.stdout.on("data", (chunk) => {
    buffered += chunk;
    const lines = buffered.split("\n");
    buffered = lines.pop() ?? "";
    for (const line of lines) {
      const frame = JSON.parse(line);
      if (frame.id === undefined || frame.method !== undefined) continue;
      answered += 1;
      if (frame.id === 2 && frame.result) {
        sessionId = frame.result.sessionId;
        send(3, "session/prompt", { sessionId, prompt: [{ type: "text", text: "Read notes.txt, then say ready." }] });
      } else if (frame.id === 1) send(2, "session/new", { cwd: home, mcpServers: [] });
      else if (frame.id === 3 && frame.result) send(4, "session/load", { sessionId, cwd: home, mcpServers: [] });
      else child.stdin.end();
    }
  });
  send(1, "initialize", { protocolVersion: 1, clientCapabilities: {} });
  const code = await new Promise((resolve) => child.on("exit", resolve));
  model.close();
  rmSync(home, { recursive: true, force: true });
  if (code !== 0 || answered < 4 || calls !== 2) throw new Error(`code-cache warm-up failed (exit ${code}, ${answered} answers, ${calls} model calls)`);
  if (!readdirSync(out).includes("hermes.cache")) throw new Error("code-cache warm-up wrote no hermes.cache");
}
