// The start-up baseline for `npm run bench`: plain Node with no imports and no libraries, reading
// newline-delimited JSON-RPC on stdin and answering `initialize` with a frame shaped and sized like
// hermes' own answer. It exits when stdin closes, as the agent does.
let buffered = "";

const result = {
  protocolVersion: 1,
  agentInfo: { name: "hermes-agent", title: "Hermes Agent", version: "0.1.0" },
  agentCapabilities: { loadSession: false, promptCapabilities: { image: false, audio: false, embeddedContext: false } },
  authMethods: [
    {
      id: "custom",
      name: "custom runtime credentials",
      description: "Authenticate Hermes using the currently configured custom runtime credentials.",
    },
    {
      id: "hermes-setup",
      type: "terminal",
      name: "Configure Hermes provider",
      description:
        "Open Hermes' interactive model/provider setup in a terminal. Use this when Hermes has not been configured on this machine yet.",
      args: ["--setup"],
    },
  ],
};

process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  buffered += chunk;
  let end = buffered.indexOf("\n");
  while (end >= 0) {
    const line = buffered.slice(0, end).trim();
    buffered = buffered.slice(end + 1);
    if (line !== "") {
      const request = JSON.parse(line);
      if (request.method === "initialize") {
        process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", id: request.id, result })}\n`);
      }
    }
    end = buffered.indexOf("\n");
  }
});
