/**
 * `Client`: the service over `fetch` alone, so it runs in Node >= 18, Deno, Bun, browsers and
 * edge runtimes. Namespaces as the spec writes them: `agents` (with `memories` and `records`),
 * `agentManifests`, `sessions`, `turns` (with `tools`), `history`, `audit`, `tenant`, and
 * `search(...)` and `ingest(...)`. Every failure rejects with `AgentMemoryError`.
 */
import { Agents } from "./agents.js";
import { Caller, pages, split } from "./core.js";
import { ConnectionFailed } from "./errors.js";
import { AgentManifests } from "./manifests.js";
import { encode, noDotSegments } from "./paths.js";
import { History, Sessions, Turns } from "./sessions.js";
import {
  DEFAULT_RETRY,
  type FetchLike,
  type RequestOptions,
  type RetryPolicy,
  answer,
  attemptSignal,
  describe,
  isSafe,
  neverSent,
  retries,
  sleep,
  target,
  waitBefore,
} from "./transport.js";
import type { AuditEntry, CallOptions, PageOptions, paths } from "./types.js";

export interface ClientOptions {
  /** Where the service is: `http://127.0.0.1:8080` (a bare `host:port` is plain HTTP). */
  baseUrl: string;
  /** The bearer token (`agent-memory serve` writes one to `<data dir>/token`). */
  token?: string;
  /** A `fetch` of your own (a proxy's, a test's); the global one by default. */
  fetch?: FetchLike;
  /** Each attempt's limit; 30 s by default, 0 for none. */
  timeoutMs?: number;
  /** How often a failed call may be sent again (a number: that many times more), or the whole
   * policy. 3 more by default; 0 never retries. */
  retries?: number | Partial<RetryPolicy>;
  /** Headers sent with every request besides the token's. */
  headers?: { [name: string]: string };
}

export type IngestMessage = paths["/v1/ingest"]["post"]["requestBody"]["content"]["application/json"]["messages"][number];

export class Client {
  readonly baseUrl: string;
  readonly retry: RetryPolicy;
  readonly timeoutMs: number;
  readonly agents: Agents;
  readonly agentManifests: AgentManifests;
  readonly sessions: Sessions;
  readonly turns: Turns;
  readonly history: History;
  readonly audit: Audit;
  readonly tenant: Tenant;
  private readonly fetch: FetchLike;
  private readonly headers: { [name: string]: string };
  private readonly caller: Caller;

  constructor(options: ClientOptions) {
    const url = options.baseUrl.replace(/\/+$/, "");
    this.baseUrl = url.includes("://") ? url : `http://${url}`;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    const policy = options.retries;
    this.retry =
      typeof policy === "number"
        ? { ...DEFAULT_RETRY, attempts: Math.max(1, Math.floor(policy) + 1) }
        : { ...DEFAULT_RETRY, ...policy };
    if (!options.fetch && typeof globalThis.fetch !== "function") {
      throw new TypeError("this runtime has no fetch: pass one as options.fetch");
    }
    // The global looked up at each call, so a fetch patched after the client was made is used.
    this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.headers = { Accept: "application/json", ...options.headers };
    if (options.token) this.headers.Authorization = `Bearer ${options.token}`;
    const caller = new Caller(this);
    this.agents = new Agents(caller);
    this.agentManifests = new AgentManifests(caller);
    this.sessions = new Sessions(caller);
    this.turns = new Turns(caller);
    this.history = new History(caller);
    this.audit = new Audit(caller);
    this.tenant = new Tenant(caller);
    this.caller = caller;
  }

  /** One search over the agent's records, file memories and history, best first (`types`:
   * some of records, memories, history). */
  search(agentId: string, query: string, options?: CallOptions & { types?: string | string[]; limit?: number }) {
    return this.agents.search(agentId, query, options);
  }

  /** Apply a batch of ingestion messages (at most 500) in order; each answered in place. Safe
   * to send again: each message names its own session, turn and event sequence. */
  ingest(messages: IngestMessage[], options?: CallOptions) {
    return this.caller.call("post", "/v1/ingest", {}, { ...options, body: { messages }, retry: true, holds: ["results"] });
  }

  /**
   * One call, the way out every namespace takes: `path` is the URL path, whose segments are
   * sent plain (`/` kept, the rest percent-encoded; a `.` or `..` segment is refused);
   * the JSON it answers (`lines`: JSON Lines, as a list). A failure is sent again as the
   * module `transport` says; the last one rejects with `AgentMemoryError`. A call aborted by
   * `signal` rejects with the signal's reason.
   */
  async request(method: string, path: string, options: RequestOptions = {}): Promise<unknown> {
    noDotSegments(path);
    const url = target(this.baseUrl, encode(path, true), options.query);
    const safe = isSafe(method, options.retry);
    const headers = { ...this.headers };
    let body: string | undefined;
    if (options.body !== undefined) {
      headers["Content-Type"] = "application/json";
      body = JSON.stringify(options.body);
    }
    const where = `${method} ${path}`;
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    for (let attempt = 0; ; attempt++) {
      const limit = attemptSignal(options.signal, timeoutMs);
      let status: number | null = null;
      let text = "";
      let retryAfter: string | null = null;
      let failure: unknown;
      try {
        const response = await this.fetch(url, { method, headers, body, signal: limit.signal });
        status = response.status;
        retryAfter = response.headers.get("Retry-After");
        text = await response.text();
      } catch (error) {
        if (options.signal?.aborted) throw options.signal.reason;
        failure = error;
        status = null;
      } finally {
        limit.done();
      }
      const failed = failure !== undefined || (status !== null && status >= 400);
      if (failed && retries(safe, failure !== undefined ? null : status, failure !== undefined && neverSent(failure))) {
        const wait = waitBefore(this.retry, attempt, retryAfter);
        if (wait !== null) {
          await sleep(wait, options.signal);
          continue;
        }
      }
      if (failure !== undefined) {
        const reason = limit.timedOut() ? `no answer in ${timeoutMs} ms` : describe(failure);
        throw new ConnectionFailed(this.baseUrl, reason, failure);
      }
      return answer(status as number, text, options.lines ?? false, where);
    }
  }
}

/** `client.audit`: who called what (takes the admin scope). */
export class Audit {
  constructor(private readonly c: Caller) {}

  /** Entries newest first: `{ entries, next }`; filter by `agentId`, `actor`, `since` (ISO 8601). */
  list(options?: PageOptions & { agentId?: string; actor?: string; since?: string }) {
    const { call, query } = split(options);
    return this.c.call("get", "/v1/audit", {}, { ...call, query, holds: ["entries"] });
  }

  iter(options?: Omit<PageOptions, "cursor"> & { agentId?: string; actor?: string; since?: string }): AsyncGenerator<AuditEntry, void, undefined> {
    return pages((cursor) => this.list({ ...options, cursor }), "entries");
  }
}

/** `client.tenant`: the tenant's limits. */
export class Tenant {
  constructor(private readonly c: Caller) {}

  limits(options?: CallOptions) {
    return this.c.call("get", "/v1/tenant/limits", {}, options);
  }

  setLimits(limits: { memoryBytes?: number; memoriesPerAgent?: number }, options?: CallOptions) {
    return this.c.call("put", "/v1/tenant/limits", {}, { ...options, body: limits });
  }
}
