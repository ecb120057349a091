// The serving half of the dependency floor agents (`dependency-floor-agent.mjs`, whose libraries
// come from a code cache, and `dependency-floor-snapshot.cjs`, whose libraries are in a V8
// start-up snapshot). `serve(options)` answers `initialize` at once, and on `session/new` calls
// `options.loadDependencies()` (which must answer the bundle's exports: acp, zod, yaml, openai) and
// opens a SQLite database with better-sqlite3, then answers. On `session/prompt` it streams the
// answer from the model (FLOOR_BASE_URL) with one plain `http` request and relays its first content
// delta as an `agent_message_chunk`. No agent work: no config, tools, system prompt, store schema or
// session record. Every frame goes to stdout; it stops reading when stdin closes.
// `options.require` loads node's modules and better-sqlite3 when first needed, as hermes' do.
"use strict";

const initializeResult = {
  protocolVersion: 1,
  agentInfo: { name: "hermes-agent", title: "Hermes Agent", version: "0.1.0" },
  agentCapabilities: { loadSession: false, promptCapabilities: { image: false, audio: false, embeddedContext: false } },
  authMethods: [{ id: "custom", name: "custom runtime credentials", description: "Authenticate Hermes using the currently configured custom runtime credentials." }],
};

function serve({ loadDependencies, require }) {
  const write = (frame) => process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", ...frame })}\n`);

  function openSession(id) {
    const dependencies = loadDependencies();
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
}

module.exports = { serve };
