import type { ClientCapabilities } from "@agentclientprotocol/sdk/unstable";
import { compactionUpdates, wantsCompactionUpdates } from "./event-bridge.js";
import type { LiveSession } from "./session-manager.js";

const bridged = new WeakSet<LiveSession>();

/**
 * Sends `live`'s compressions to its client as `compactionUpdates` maps them (whether it opted in
 * is read from `capabilities` as each compression is told), from every source: in a turn, by
 * `/compress`, by the context-overflow recovery. Idempotent per live session (load and resume of a
 * session already open call it again); the subscription ends with the runtime session.
 */
export function bridgeCompaction(live: LiveSession, capabilities: () => ClientCapabilities): void {
  if (bridged.has(live)) return;
  bridged.add(live);
  live.session.onCompaction((event) => {
    for (const update of compactionUpdates(event, wantsCompactionUpdates(capabilities()))) live.updates.send(update);
  });
}
