import { createRequire } from "node:module";

/**
 * An installed package (or a Node built-in module), loaded on first use and kept out of the bundle: the CLI ships as one
 * bundled file, and anything `import()` reaches is bundled into it — lazily evaluated, but still
 * read and compiled at every start (the HTML and PDF libraries added 2.4 MB and ~25 ms to
 * start-up when bundled). `require` through `createRequire` is not followed by the bundler, and
 * resolves from the running file (`dist/` beside `node_modules/`, or the source tree under tests).
 * An `import()` of anything left outside the bundle — such a package, or a built-in like
 * `node:https` — fails there: the launcher runs the bundle in a `vm.Script`, where Node 20 has no
 * dynamic `import()` ("A dynamic import callback was not specified").
 * Throws what `require` throws (a missing package names itself).
 */
export function loadPackage<T>(name: string): T {
  return createRequire(import.meta.url)(name) as T;
}
