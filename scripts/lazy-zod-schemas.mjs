// An esbuild plugin for the ACP SDK's generated zod schemas (`dist/**/schema/zod.gen.js`): as
// published, evaluating that module builds every one of its ~250 schemas (~1,300 zod objects), the
// largest part of start-up. Rewritten, each schema is built on its first use: an exported schema
// is a `z.lazy` over a memoized builder, and inside the module each reference to another schema
// calls that schema's builder. Parsing gives the same results and the same errors; only when the
// objects are made changes. The rewrite accepts only the generator's shape (imports, then
// `export const zName = <expression>;` statements) and fails the build on anything else.
import { readFile } from "node:fs/promises";
import { parse } from "acorn";

/**
 * Files the plugin rewrites: the v1 protocol's schemas (stable and unstable), whose importers only
 * parse with them. (The SDK's experimental v2 and nes bindings also read `.shape` or call
 * `.extend` on exported schemas, which a `z.lazy` does not have: they are left as published.)
 */
export const ZOD_GEN_FILE = /[\\/]@agentclientprotocol[\\/]sdk[\\/]dist[\\/]v1[\\/](unstable[\\/])?schema[\\/]zod\.gen\.js$/;

/** The esbuild plugin. */
export const lazyZodSchemas = {
  name: "lazy-zod-schemas",
  setup(pluginBuild) {
    pluginBuild.onLoad({ filter: ZOD_GEN_FILE }, async (args) => ({
      contents: lazifyZodModule(await readFile(args.path, "utf8"), args.path),
      loader: "js",
    }));
  },
};

/**
 * The source of a generated schema module rewritten so each schema is built on first use.
 * Throws (naming `file`) when the module is not of the generator's shape, or when its zod
 * namespace import (`import * as z from "zod/v4"`) is missing.
 */
export function lazifyZodModule(source, file = "zod.gen.js") {
  const program = parse(source, { ecmaVersion: "latest", sourceType: "module" });
  const imports = [];
  const schemas = [];
  let zod;
  for (const statement of program.body) {
    if (statement.type === "ImportDeclaration") {
      imports.push(source.slice(statement.start, statement.end));
      const namespace = statement.specifiers.find((specifier) => specifier.type === "ImportNamespaceSpecifier");
      if (namespace && /^zod(\/v4)?$/.test(statement.source.value)) zod = namespace.local.name;
      continue;
    }
    const declaration = statement.type === "ExportNamedDeclaration" ? statement.declaration : undefined;
    const declarator = declaration?.type === "VariableDeclaration" && declaration.kind === "const" && declaration.declarations.length === 1 ? declaration.declarations[0] : undefined;
    if (!declarator || declarator.id.type !== "Identifier" || !declarator.init) {
      throw new Error(`${file}: unexpected top-level statement at offset ${statement.start} (${statement.type}); the lazy-schema rewrite knows only imports and \`export const zName = ...;\``);
    }
    schemas.push({ name: declarator.id.name, init: declarator.init });
  }
  if (!zod) throw new Error(`${file}: no \`import * as z from "zod/v4"\`; the lazy-schema rewrite needs it`);
  const names = new Set(schemas.map((schema) => schema.name));
  const builder = (name) => `${name}$$build`;
  const out = [...imports, "const __lazySchemaMemo = (build) => { let schema; return () => (schema ??= build()); };"];
  for (const { name, init } of schemas) {
    // Pure: esbuild drops the schemas nothing in the bundle reads (each a z.lazy of 5 zod objects otherwise).
    out.push(`const ${builder(name)} = /* @__PURE__ */ __lazySchemaMemo(() => (${rewriteReferences(source, init, names, builder)}));`);
    out.push(`export const ${name} = /* @__PURE__ */ ${zod}.lazy(${builder(name)});`);
  }
  return `${out.join("\n")}\n`;
}

/** The text of `expression` with every reference to a schema in `names` replaced by a call of its builder. */
function rewriteReferences(source, expression, names, builder) {
  const edits = [];
  visit(expression, undefined, (node, parent) => {
    if (node.type !== "Identifier" || !names.has(node.name)) return;
    if (parent?.type === "MemberExpression" && parent.property === node && !parent.computed) return;
    if (parent?.type === "Property" && parent.key === node && !parent.computed) {
      if (parent.shorthand) edits.push({ start: node.start, end: node.end, text: `${node.name}: ${builder(node.name)}()` });
      return;
    }
    edits.push({ start: node.start, end: node.end, text: `${builder(node.name)}()` });
  });
  edits.sort((a, b) => a.start - b.start);
  let text = "";
  let at = expression.start;
  for (const edit of edits) {
    text += source.slice(at, edit.start) + edit.text;
    at = edit.end;
  }
  return text + source.slice(at, expression.end);
}

/** Calls `onNode(node, parent)` for `node` and every AST node below it. */
function visit(node, parent, onNode) {
  onNode(node, parent);
  for (const value of Object.values(node)) {
    if (Array.isArray(value)) {
      for (const child of value) if (child && typeof child.type === "string") visit(child, node, onNode);
    } else if (value && typeof value === "object" && typeof value.type === "string") {
      visit(value, node, onNode);
    }
  }
}
