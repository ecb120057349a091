// The snapshot variant of the dependency floor agent: the entry of a V8 start-up snapshot
// (`node --snapshot-blob <blob> --build-snapshot`, Node 20's user-land snapshot). esbuild bundles it
// with the floor's libraries (`hermes-floor-dependencies`, the same entry dependency-floor-agent.mjs
// code-caches) and dependency-floor-serve.cjs; evaluating it while the snapshot is built leaves the
// ACP SDK, zod, yaml and openai in the snapshot's heap. Started with
// `node --snapshot-blob <blob> <dir>`, it serves as dependency-floor-serve.cjs says, its libraries
// already there before `initialize`; better-sqlite3 (a native addon, which a snapshot cannot hold)
// loads on `session/new` from the node_modules above <dir>.
"use strict";

const { startupSnapshot } = require("node:v8");
const dependencies = require("hermes-floor-dependencies");
const { serve } = require("./dependency-floor-serve.cjs");

startupSnapshot.setDeserializeMainFunction(() => {
  const dir = process.argv[1]; // a snapshot's main has no script name in argv
  if (!dir) throw new Error("usage: node --snapshot-blob <blob> <dir>");
  const load = require("node:module").createRequire(require("node:path").join(dir, "entry.cjs"));
  serve({ loadDependencies: () => dependencies, require: load });
});
