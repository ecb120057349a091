import { RequestError } from "@agentclientprotocol/sdk/unstable";
import { HermesError } from "../shared/errors.js";

export const AUTH_REQUIRED = -32000;

/**
 * Maps anything a handler caught to the JSON-RPC error the client should see. Messages are the
 * user-facing ones from HermesError; unknown errors become -32603 with their message only.
 */
export function toRequestError(error: unknown): RequestError {
  if (error instanceof RequestError) return error;
  if (error instanceof HermesError) {
    switch (error.code) {
      case "auth_required":
        return new RequestError(AUTH_REQUIRED, error.message, error.data);
      case "session_not_found":
        return RequestError.sessionNotFound(String(error.data?.sessionId ?? ""));
      case "invalid_params":
        return new RequestError(-32602, `Invalid params: ${error.message}`, error.data);
      case "config_invalid":
        return new RequestError(-32603, error.message, { details: error.message });
      default:
        return new RequestError(-32603, error.message, { details: error.message });
    }
  }
  const message = error instanceof Error ? error.message : String(error);
  return new RequestError(-32603, "Internal error", { details: message });
}
