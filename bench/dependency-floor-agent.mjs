// The dependency floor of the "cold first answer" and idle-RSS rows in `npm run bench`: the least any Node agent
// built on hermes-acp's libraries does between spawn and the first chunk of a first prompt. It
// answers `initialize` as bench/bare-initialize.mjs does (before loading anything). On
// `session/new` it evaluates the libraries the first answer needs — the ACP SDK, zod, yaml and the
// OpenAI SDK, bundled into one file and code-cached as hermes' own bundle is (dependency-floor.ts
// builds both) — and opens a SQLite database with better-sqlite3, then answers. On
// `session/prompt` it streams the answer from the model with one plain `http` request and relays
// its first content delta as an `agent_message_chunk`. No agent work: no config, tools, system
// prompt, store schema or session record. Every frame goes to stdout; it exits when stdin closes.
//
// `node dependency-floor-agent.mjs <dir>` serves, loading <dir>/deps.cjs with <dir>/deps.cjs.cache;
// `node dependency-floor-agent.mjs <dir> --write-cache` evaluates the bundle once and writes the cache.
// Node's modules beyond its boot set (vm, http, better-sqlite3) load when first needed, as hermes' do.
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const dir = process.argv[2];
if (!dir) throw new Error("usage: dependency-floor-agent.mjs <dir> [--write-cache]");

const initializeResult = {
  protocolVersion: 1,
  agentInfo: { name: "hermes-agent", title: "Hermes Agent", version: "0.1.0" },
  agentCapabilities: { loadSession: false, promptCapabilities: { image: false, audio: false, embeddedContext: false } },
  authMethods: [{ id: "custom", name: "custom runtime credentials", description: "Authenticate Hermes using the currently configured custom runtime credentials." }],
};

/** Evaluates the bundled libraries from their code cache (or writes it); answers their exports. */
function loadDependencies(writeCache) {
  const { readFileSync, writeFileSync } = require("node:fs");
  const { join } = require("node:path");
  const { Script } = require("node:vm");
  const { wrap } = require("node:module");
  const file = join(dir, "deps.cjs");
  const cacheFile = `${file}.cache`;
  const script = new Script(wrap(readFileSync(file, "utf8")), { filename: file, cachedData: writeCache ? undefined : readFileSync(cacheFile) });
  if (script.cachedDataRejected) throw new Error(`${cacheFile} was rejected by V8`);
  const module = { exports: {} };
  script.runInThisContext().call(module.exports, module.exports, require, module, file, dir);
  if (writeCache) writeFileSync(cacheFile, script.createCachedData());
  return module.exports;
}

if (process.argv[3] === "--write-cache") {
  loadDependencies(true);
  process.exit(0);
}

const write = (frame) => process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", ...frame })}\n`);

function openSession(id) {
  const dependencies = loadDependencies(false);
  for (const name of ["acp", "zod", "yaml", "openai"]) if (!dependencies[name]) throw new Error(`the bundle has no ${name}`);
  const Database = require("better-sqlite3");
  const db = new Database(require("node:path").join(process.env.HERMES_HOME ?? require("node:os").tmpdir(), "dependency-floor.db"));
  db.pragma("journal_mode = WAL");
  db.exec("CREATE TABLE IF NOT EXISTS t (x)");
  write({ id, result: { sessionId: "floor" } });
}

function prompt(id, sessionId) {
  const base = new URL(`${process.env.FLOOR_BASE_URL}/chat/completions`);
  const body = JSON.stringify({ model: "test-model", stream: true, messages: [{ role: "user", content: "Say hello." }] });
  const request = require("node:http").request(base, { method: "POST", headers: { "content-type": "application/json", authorization: "Bearer floor" } }, (response) => {
    let buffered = "";
    let relayed = false;
    response.setEncoding("utf8");
    response.on("data", (chunk) => {
      buffered += chunk;
      let end = buffered.indexOf("\n\n");
      while (end >= 0) {
        const event = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        const data = event.startsWith("data: ") ? event.slice(6) : "";
        if (data !== "" && data !== "[DONE]" && !relayed) {
          const text = JSON.parse(data).choices?.[0]?.delta?.content;
          if (text) {
            relayed = true;
            write({ method: "session/update", params: { sessionId, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } } } });
          }
        }
        end = buffered.indexOf("\n\n");
      }
    });
    response.on("end", () => write({ id, result: { stopReason: "end_turn" } }));
  });
  request.on("error", (error) => write({ id, error: { code: -32603, message: error.message } }));
  request.end(body);
}

let buffered = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  buffered += chunk;
  let end = buffered.indexOf("\n");
  while (end >= 0) {
    const line = buffered.slice(0, end).trim();
    buffered = buffered.slice(end + 1);
    if (line !== "") {
      const request = JSON.parse(line);
      if (request.method === "initialize") write({ id: request.id, result: initializeResult });
      else if (request.method === "session/new") openSession(request.id);
      else if (request.method === "session/prompt") prompt(request.id, request.params.sessionId);
      else if (request.id !== undefined) write({ id: request.id, error: { code: -32601, message: `${request.method} is not served by the floor agent` } });
    }
    end = buffered.indexOf("\n");
  }
});
