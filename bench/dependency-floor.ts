/**
 * The dependency floor of the "cold first answer" row: `dependency-floor-agent.mjs` over the
 * libraries a first answer needs, bundled into one file and code-cached as hermes' own bundle is
 * (esbuild, minified; a V8 code cache written after one evaluation). Built into
 * `.bench/dependency-floor/` once per bench run from the installed packages.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { build } from "esbuild";

export const FLOOR_AGENT = resolve(import.meta.dirname, "dependency-floor-agent.mjs");

/** The packages the floor agent evaluates on `session/new`, by the name it checks them under. */
const DEPENDENCIES = { acp: "@agentclientprotocol/sdk", zod: "zod", yaml: "yaml", openai: "openai" } as const;

/** Builds the bundle and its code cache; answers the folder to pass the floor agent. */
export async function buildDependencyFloor(): Promise<string> {
  const dir = resolve(import.meta.dirname, "../.bench/dependency-floor");
  mkdirSync(dir, { recursive: true });
  const entry = join(dir, "entry.cjs");
  writeFileSync(entry, `module.exports = {\n${Object.entries(DEPENDENCIES).map(([name, pkg]) => `  ${name}: require(${JSON.stringify(pkg)}),`).join("\n")}\n};\n`);
  await build({
    entryPoints: [entry],
    outfile: join(dir, "deps.cjs"),
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    minify: true,
    legalComments: "none",
    logLevel: "warning",
    absWorkingDir: resolve(import.meta.dirname, ".."),
  });
  execFileSync(process.execPath, [FLOOR_AGENT, dir, "--write-cache"], { stdio: ["ignore", "ignore", "inherit"] });
  return dir;
}
