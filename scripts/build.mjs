// Bundles the CLI into one minified ESM file, dist/hermes.js (both bins point at it).
// Native modules stay external; everything else is inlined so start-up reads one file.
import { chmodSync, readFileSync, rmSync } from "node:fs";
import { build } from "esbuild";

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));

rmSync(new URL("../dist", import.meta.url), { recursive: true, force: true });
await build({
  entryPoints: ["src/cli/main.ts"],
  outfile: "dist/hermes.js",
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  minify: true,
  sourcemap: "linked",
  legalComments: "none",
  external: ["better-sqlite3"],
  define: { __HERMES_VERSION__: JSON.stringify(pkg.version) },
  banner: {
    js: '#!/usr/bin/env node\nimport { createRequire as __hermesCreateRequire } from "node:module"; const require = __hermesCreateRequire(import.meta.url);',
  },
  logLevel: "warning",
});
chmodSync("dist/hermes.js", 0o755);
