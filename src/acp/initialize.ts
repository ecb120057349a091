import type { InitializeResponse } from "@agentclientprotocol/sdk/unstable";
import { VERSION } from "../shared/version.js";
import { buildAuthMethods, type AuthMethodOptions } from "./auth.js";

/**
 * The ACP protocol version this agent speaks: the SDK's `PROTOCOL_VERSION` (a test keeps them
 * equal), written out so that the early `initialize` answer (early-initialize.ts) does not load the SDK.
 */
export const ACP_PROTOCOL_VERSION = 1;

/**
 * The `initialize` answer. Capabilities advertise only what exists: text, image and embedded
 * resource prompts (not audio); sessions that load (with replay), resume, fork, list, close and
 * delete; MCP servers over stdio, http and sse; `logout`. Auth methods depend on the client's
 * opt-ins (see `buildAuthMethods`).
 */
export function initializeResponse(auth: AuthMethodOptions): InitializeResponse {
  return {
    protocolVersion: ACP_PROTOCOL_VERSION,
    agentInfo: { name: "hermes-agent", title: "Hermes Agent", version: VERSION },
    agentCapabilities: {
      loadSession: true,
      mcpCapabilities: { http: true, sse: true },
      // Images and embedded resources are converted (prompt-content.ts); audio is only noted.
      promptCapabilities: { image: true, audio: false, embeddedContext: true },
      sessionCapabilities: { list: {}, resume: {}, close: {}, delete: {}, fork: {} },
      auth: { logout: {} },
    },
    authMethods: buildAuthMethods(auth),
  };
}
