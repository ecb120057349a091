import { PROTOCOL_VERSION, type InitializeResponse } from "@agentclientprotocol/sdk/unstable";
import { VERSION } from "../shared/version.js";
import { buildAuthMethods } from "./auth.js";

/**
 * The `initialize` answer. Capabilities advertise only what exists: text prompts; sessions that
 * load (with replay), resume, fork, list, close and delete; no MCP or embedded context yet.
 */
export function initializeResponse(configuredProvider: string | undefined): InitializeResponse {
  return {
    protocolVersion: PROTOCOL_VERSION,
    agentInfo: { name: "hermes-agent", title: "Hermes Agent", version: VERSION },
    agentCapabilities: {
      loadSession: true,
      promptCapabilities: { image: false, audio: false, embeddedContext: false },
      sessionCapabilities: { list: {}, resume: {}, close: {}, delete: {}, fork: {} },
    },
    authMethods: buildAuthMethods(configuredProvider),
  };
}
