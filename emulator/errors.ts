// The portal's error answer: `{status, code, message, developerMessage}` with
// the status codes and codes of docs/portal-contract.md. Messages are built
// by the emulator from field names and ids only, never from secrets.

export interface ErrorBody {
  status: number;
  code: string;
  message: string;
  developerMessage: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly developerMessage: string = message,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "ApiError";
  }

  body(): ErrorBody | OAuthErrorBody {
    return { status: this.status, code: this.code, message: this.message, developerMessage: this.developerMessage };
  }
}

/** RFC 6749 section 5.2: what an OAuth token endpoint answers a refused grant. */
export interface OAuthErrorBody {
  error: string;
  error_description: string;
}

/**
 * A refused token request, answered as OAuth servers do: 400 `{error, error_description}`
 * (`invalid_grant` for a wrong username or password, `invalid_client` for an unknown client ID).
 */
export class OAuthError extends ApiError {
  constructor(error: "invalid_grant" | "invalid_client" | "unauthorized_client" | "invalid_request", description: string) {
    super(400, error, description);
    this.name = "OAuthError";
  }

  override body(): OAuthErrorBody {
    return { error: this.code, error_description: this.message };
  }
}

export const validation = (message: string, code = "ValidationFailed"): ApiError => new ApiError(400, code, message);
export const unauthorized = (code: string, message: string): ApiError => new ApiError(401, code, message);
export const notFound = (what: string): ApiError => new ApiError(404, "NotFound", `${what} was not found`);
export const conflict = (code: string, message: string): ApiError => new ApiError(409, code, message);

/** Fault-injected answers (never produced by the portal logic itself). */
export function faultError(status: number, retryAfterSeconds: number): ApiError {
  if (status === 429) {
    return new ApiError(
      429,
      "TooManyRequests",
      "Too many requests; retry later",
      `Rate limited (injected fault); retry after ${retryAfterSeconds} s`,
      { "Retry-After": String(retryAfterSeconds) },
    );
  }
  if (status === 503) {
    return new ApiError(503, "Unavailable", "The service is temporarily unavailable", "Unavailable (injected fault)");
  }
  return new ApiError(500, "InternalError", "An internal error occurred", "Internal error (injected fault)");
}
