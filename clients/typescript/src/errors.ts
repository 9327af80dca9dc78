/**
 * The client's one error type, `AgentMemoryError`: every call rejects with it when it has no
 * answer to return. Its subclasses only say which case it was: an error answer (`ApiError`),
 * no answer at all (`ConnectionFailed`), a path refused before sending (`InvalidPath`), an
 * answer the client cannot read (`UnexpectedResponse`). As the Python SDK's `ClientError`.
 */

/** `status`: the HTTP status (null when no response came); `code`: the error body's code (or
 * `connection_failed`, `invalid_path`, ...); `message`: what went wrong. */
export class AgentMemoryError extends Error {
  readonly status: number | null;
  readonly code: string;

  constructor(status: number | null, code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "AgentMemoryError";
    this.status = status;
    this.code = code;
  }
}

/** An error answer: `status`, the body's `code` and `message`, the whole body in `body` (a
 * `memory_conflict`'s `current` memory is in `details.current`). */
export class ApiError extends AgentMemoryError {
  readonly body: unknown;

  constructor(status: number, body: unknown) {
    const error = errorOf(body);
    super(
      status,
      typeof error.code === "string" ? error.code : "unknown",
      typeof error.message === "string" ? error.message : JSON.stringify(body),
    );
    this.name = "ApiError";
    this.body = body;
  }

  /** The error's fields beyond code and message (`current`, `path`, `alreadyKept`, ...). */
  get details(): Record<string, unknown> {
    const { code: _code, message: _message, ...rest } = errorOf(this.body);
    return rest;
  }
}

/** No answer from the server (refused, unknown host, timed out, cut off): `url`, `reason`. */
export class ConnectionFailed extends AgentMemoryError {
  readonly url: string;
  readonly reason: string;

  constructor(url: string, reason: string, cause?: unknown) {
    super(null, "connection_failed", `cannot reach ${url}: ${reason}`, { cause });
    this.name = "ConnectionFailed";
    this.url = url;
    this.reason = reason;
  }
}

/** A path or id refused before any request was sent (`..` segments and the like). */
export class InvalidPath extends AgentMemoryError {
  readonly path: string;
  readonly reason: string;

  constructor(path: string, reason: string, what = "memory path") {
    super(null, "invalid_path", `invalid ${what} ${JSON.stringify(path)}: ${reason}`);
    this.name = "InvalidPath";
    this.path = path;
    this.reason = reason;
  }
}

/** A success status whose body is not what the call answers (a proxy's page, another route's
 * answer): `status`, and what did not fit in `message`. */
export class UnexpectedResponse extends AgentMemoryError {
  readonly where: string;

  constructor(status: number | null, where: string, problem: string) {
    super(status, "unexpected_response", `${where} answered what the client cannot read: ${problem}`);
    this.name = "UnexpectedResponse";
    this.where = where;
  }
}

function errorOf(body: unknown): Record<string, unknown> {
  if (body && typeof body === "object" && "error" in body) {
    const error = (body as { error: unknown }).error;
    if (error && typeof error === "object") return error as Record<string, unknown>;
  }
  return {};
}
