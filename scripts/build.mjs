// Bundles the CLI into one minified ESM file, dist/hermes.js (both bins point at it), with every
// dependency inlined except native modules. Modules reached through `import()` are evaluated on
// first use only, so start-up runs just what the command needs.
import { chmodSync, readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { build } from "esbuild";

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
  plugins: [zodEnglishOnly],
  define: { __HERMES_VERSION__: JSON.stringify(pkg.version) },
  banner: {
    js: '#!/usr/bin/env node\nimport { createRequire as __hermesCreateRequire } from "node:module"; const require = __hermesCreateRequire(import.meta.url);',
  },
  logLevel: "warning",
});
chmodSync("dist/hermes.js", 0o755);
