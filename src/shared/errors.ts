/** Error codes every layer may raise; the ACP adapter maps them to JSON-RPC codes. */
export type HermesErrorCode =
  | "config_invalid"
  | "auth_required"
  | "session_not_found"
  | "invalid_params"
  | "provider_error"
  | "internal";

/** An error with a stable code and a message written for the user, never a stack trace. */
export class HermesError extends Error {
  readonly code: HermesErrorCode;
  readonly data: Record<string, unknown> | undefined;

  constructor(code: HermesErrorCode, message: string, data?: Record<string, unknown>) {
    super(message);
    this.name = "HermesError";
    this.code = code;
    this.data = data;
  }
}

export function isHermesError(value: unknown, code?: HermesErrorCode): value is HermesError {
  return value instanceof HermesError && (code === undefined || value.code === code);
}

/** The message of anything thrown, for logs and one-line user errors. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
