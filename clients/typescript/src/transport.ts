/**
 * Sending a request over `fetch`, and deciding whether a failure may be sent again (and after
 * how long). The rules are the Python SDK's (`client/transport.py`):
 *
 * - **429** and a **connection that never opened** (refused, unknown host, connect timeout):
 *   the server did not act on the request, so every call is sent again, a POST too.
 * - **503** and an **answer lost after the request was sent** (reset, cut off, the client's
 *   own timeout): the server may have applied it, so only a call safe to apply twice is sent
 *   again: GET, PUT, DELETE, and the POSTs idempotent by the caller's own ids (ingest, events
 *   that all carry their `sequence`).
 *
 * Waits: the answer's `Retry-After` (seconds or an HTTP date) when it has one, else exponential
 * backoff with jitter; a `Retry-After` longer than `maxWaitMs` is not waited for (the error is
 * raised at once, so no call blocks for minutes).
 */
import { AgentMemoryError, ApiError, ConnectionFailed, UnexpectedResponse } from "./errors.js";

/** `attempts` in all (1: never retry); waits `backoffMs * 2**n` (plus up to half again as
 * jitter, at most `maxBackoffMs`) unless the answer says `Retry-After`. */
export interface RetryPolicy {
  attempts: number;
  backoffMs: number;
  maxBackoffMs: number;
  maxWaitMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
  attempts: 4,
  backoffMs: 250,
  maxBackoffMs: 8_000,
  maxWaitMs: 60_000,
};

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export type Query = Record<string, unknown>;

export interface RequestOptions {
  body?: unknown;
  query?: Query;
  /** The answer is JSON Lines: a list of values. */
  lines?: boolean;
  /** Whether the call may be sent again after the server may have applied it (default: by the
   * method, GET/HEAD/PUT/DELETE). */
  retry?: boolean;
  signal?: AbortSignal;
  timeoutMs?: number;
}

/** Methods whose second application leaves what the first did. */
const IDEMPOTENT = new Set(["GET", "HEAD", "PUT", "DELETE"]);

/** Error codes of Node's fetch (undici) raised before a byte of the request left. */
const NOT_SENT = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EADDRNOTAVAIL",
  "UND_ERR_CONNECT_TIMEOUT",
]);

export function isSafe(method: string, retry: boolean | undefined): boolean {
  return retry ?? IDEMPOTENT.has(method);
}

/** Whether a failed attempt may be sent again. `notSent`: the connection never opened. */
export function retries(safe: boolean, status: number | null, notSent: boolean): boolean {
  if (status === null) return safe || notSent;
  if (status === 429) return true;
  return safe && status === 503;
}

/** Milliseconds to wait before attempt `attempt + 1` (counting from 0), or null to give up. */
export function waitBefore(policy: RetryPolicy, attempt: number, retryAfter: string | null): number | null {
  if (attempt + 1 >= policy.attempts) return null;
  const told = retryAfter === null ? null : retryAfterMs(retryAfter);
  if (told !== null) return told <= policy.maxWaitMs ? told : null;
  const base = Math.min(policy.backoffMs * 2 ** attempt, policy.maxBackoffMs);
  return base + Math.random() * (base / 2);
}

/** `Retry-After` as milliseconds: seconds, or an HTTP date; null when unreadable. */
export function retryAfterMs(raw: string): number | null {
  const trimmed = raw.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed) * 1000;
  const when = Date.parse(trimmed);
  return Number.isNaN(when) ? null : Math.max(0, when - Date.now());
}

/** The request's URL: `path` is already encoded; query values as the Python SDK sends them
 * (booleans as true/false, objects as JSON, lists comma-separated; undefined and null left out). */
export function target(base: string, path: string, query: Query | undefined): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null) continue;
    params.append(key, queryValue(value));
  }
  const search = params.toString();
  return search ? `${base}${path}?${search}` : base + path;
}

function queryValue(value: unknown): string {
  if (typeof value === "boolean") return value ? "true" : "false";
  if (Array.isArray(value) || value instanceof Set) return [...value].map(String).join(",");
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/** Whether a fetch rejection happened before the request left (by undici's error code). */
export function neverSent(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && NOT_SENT.has(code)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

export function describe(error: unknown): string {
  const cause = (error as { cause?: unknown } | null)?.cause;
  const inner = cause instanceof Error ? cause : null;
  const code = (inner as { code?: unknown } | null)?.code;
  if (inner) return typeof code === "string" && !inner.message.includes(code) ? `${code} ${inner.message}` : inner.message;
  return error instanceof Error ? error.message || error.name : String(error);
}

/** The JSON an answer holds (`lines`: JSON Lines, as a list); an error status throws. */
export function answer(status: number, text: string, lines: boolean, where: string): unknown {
  if (status >= 400) {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = { error: { code: "http_error", message: text } };
    }
    throw new ApiError(status, body);
  }
  try {
    if (lines) {
      return text
        .split(/\r?\n/)
        .filter((line) => line.trim())
        .map((line) => JSON.parse(line) as unknown);
    }
    return text ? (JSON.parse(text) as unknown) : undefined;
  } catch (error) {
    throw new UnexpectedResponse(status, where, `not JSON (${(error as Error).message})`);
  }
}

/** Sleep `ms`, woken early (and rejecting) when `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** One attempt's signal: aborted by the caller's `signal` or after `timeoutMs`. Built by hand
 * (not `AbortSignal.any`) so it runs on Node 18. `timedOut()` tells the two apart. */
export function attemptSignal(signal: AbortSignal | undefined, timeoutMs: number) {
  const controller = new AbortController();
  let timedOut = false;
  const onAbort = () => controller.abort(signal?.reason);
  if (signal?.aborted) controller.abort(signal.reason);
  else signal?.addEventListener("abort", onAbort, { once: true });
  const timer =
    timeoutMs > 0 && Number.isFinite(timeoutMs)
      ? setTimeout(() => {
          timedOut = true;
          controller.abort(new AgentMemoryError(null, "timeout", `no answer in ${timeoutMs} ms`));
        }, timeoutMs)
      : undefined;
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    done() {
      if (timer !== undefined) clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    },
  };
}

export { ConnectionFailed };
