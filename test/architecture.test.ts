import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * DESIGN §3: layers are folders under src/, imports point downwards only, only acp/ imports the
 * ACP SDK (and the one runtime file that drives a delegated child over ACP, with the SDK's client
 * side), agent/ does no I/O of its own, no cycles, no default exports.
 */
const SRC = resolve(import.meta.dirname, "../src");

const ALLOWED: Record<string, string[]> = {
  shared: [],
  config: ["shared"],
  store: ["shared", "config"],
  llm: ["shared", "config"],
  tools: ["shared", "config", "llm"],
  agent: ["shared", "config", "llm", "tools"],
  runtime: ["shared", "config", "store", "llm", "tools", "agent"],
  acp: ["shared", "config", "llm", "tools", "agent", "runtime"],
  cli: ["shared", "config", "llm", "tools", "runtime", "acp"],
};

/** Outside acp/, the only file that may import the ACP SDK: a delegation child driven as an ACP client. */
const ACP_CLIENT_FILE = "runtime/delegation/acp-child.ts";

const FORBIDDEN_PACKAGES: Record<string, RegExp[]> = {
  agent: [/^(node:)?fs(\/promises)?$/, /^(node:)?child_process$/],
};

interface SourceFile {
  path: string;
  layer: string;
  specifiers: string[];
  text: string;
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) return listFiles(full);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [full] : [];
  });
}

const IMPORT_RE = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)|(?:^|\n)\s*import\s*["']([^"']+)["']/g;

export function readSources(root = SRC): SourceFile[] {
  return listFiles(root).map((path) => {
    const text = readFileSync(path, "utf8");
    const specifiers = [...text.matchAll(IMPORT_RE)].map((match) => match[1] ?? match[2] ?? match[3] ?? "");
    return { path, layer: relative(root, path).split("/")[0] ?? "", specifiers, text };
  });
}

function layerOf(path: string): string | undefined {
  const rel = relative(SRC, path);
  if (rel.startsWith("..")) return undefined;
  return rel.split("/")[0];
}

function resolveInternal(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith(".")) return undefined;
  return resolve(dirname(from), specifier).replace(/\.js$/, ".ts");
}

describe("architecture", () => {
  const files = readSources();

  it("finds the layers", () => {
    expect(new Set(files.map((file) => file.layer))).toEqual(new Set(Object.keys(ALLOWED).filter((layer) => files.some((f) => f.layer === layer))));
    for (const file of files) expect(Object.keys(ALLOWED), `${relative(SRC, file.path)} is outside the known layers`).toContain(file.layer);
  });

  it("imports point downwards only", () => {
    const violations: string[] = [];
    for (const file of files) {
      for (const specifier of file.specifiers) {
        const target = resolveInternal(file.path, specifier);
        if (!target) continue;
        const targetLayer = layerOf(target);
        if (targetLayer === undefined) {
          violations.push(`${relative(SRC, file.path)} imports outside src/: ${specifier}`);
        } else if (targetLayer !== file.layer && !ALLOWED[file.layer]?.includes(targetLayer)) {
          violations.push(`${relative(SRC, file.path)} (${file.layer}) imports ${targetLayer}: ${specifier}`);
        }
      }
    }
    expect(violations).toEqual([]);
  });

  it("only acp/ imports the ACP SDK; agent/ does no file or process I/O", () => {
    const violations: string[] = [];
    for (const file of files) {
      for (const specifier of file.specifiers) {
        if (specifier.startsWith("@agentclientprotocol/") && file.layer !== "acp" && relative(SRC, file.path) !== ACP_CLIENT_FILE) {
          violations.push(`${relative(SRC, file.path)} imports ${specifier}`);
        }
        for (const pattern of FORBIDDEN_PACKAGES[file.layer] ?? []) {
          if (pattern.test(specifier)) violations.push(`${relative(SRC, file.path)} imports ${specifier}`);
        }
      }
    }
    expect(violations).toEqual([]);
  });

  it("has no import cycles", () => {
    const graph = new Map(files.map((file) => [file.path, file.specifiers.map((s) => resolveInternal(file.path, s)).filter((t): t is string => !!t)]));
    const state = new Map<string, "visiting" | "done">();
    const cycles: string[] = [];
    const visit = (node: string, trail: string[]): void => {
      if (state.get(node) === "done") return;
      if (state.get(node) === "visiting") {
        cycles.push([...trail.slice(trail.indexOf(node)), node].map((p) => relative(SRC, p)).join(" -> "));
        return;
      }
      state.set(node, "visiting");
      for (const next of graph.get(node) ?? []) visit(next, [...trail, node]);
      state.set(node, "done");
    };
    for (const node of graph.keys()) visit(node, []);
    expect(cycles).toEqual([]);
  });

  it("builds the tools' module-level zod schemas on first use (z.lazy), not when a session's tools load", () => {
    // Each zod object keeps ~1-3 KB of heap; built eagerly, hermes-acp's tools held ~2 MB of them from the first session on.
    const eager = /^(?:export )?const (\w+)(?::[^=]+)? = z\b(?!\.lazy\()/gm;
    const offenders = files
      .filter((file) => relative(SRC, file.path).startsWith("tools/") && !file.path.endsWith(".test.ts"))
      .flatMap((file) => [...file.text.matchAll(eager)].map((match) => `${relative(SRC, file.path)}: ${match[1]}`))
      .filter((offender) => offender !== "tools/vision/details.ts: size");
    expect(offenders).toEqual([]);
  });

  it("has no default exports", () => {
    const offenders = files.filter((file) => /\bexport\s+default\b/.test(file.text)).map((file) => relative(SRC, file.path));
    expect(offenders).toEqual([]);
  });
});
