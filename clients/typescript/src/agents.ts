/** `client.agents`, with `client.agents.memories` and `client.agents.records`. */
import { type Caller, pages, split } from "./core.js";
import { ApiError } from "./errors.js";
import { withoutSchema } from "./paths.js";
import type {
  Agent,
  CallOptions,
  ManifestDocument,
  Memory,
  MemorySummary,
  PageOptions,
  Record,
  WrittenMemory,
} from "./types.js";

const AGENT = "/v1/agents/{agentId}";
const MEMORY = "/v1/agents/{agentId}/-/memories/{path}";

export class Agents {
  readonly memories: Memories;
  readonly records: Records;

  constructor(private readonly c: Caller) {
    this.memories = new Memories(c);
    this.records = new Records(c);
  }

  /** Save the manifest (`{ harness }`, or `{ manifest: name }` to follow a named manifest) as
   * the agent's next version. `$schema`, an editor's hint, is dropped. */
  put(id: string, manifest: ManifestDocument & { $schema?: string }, options?: CallOptions) {
    return this.c.call("put", AGENT, { agentId: id }, { ...options, body: withoutSchema(manifest) });
  }

  get(id: string, options?: CallOptions) {
    return this.c.call("get", AGENT, { agentId: id }, options);
  }

  /** A page of agents by id: `{ agents, next }`. */
  list(options?: PageOptions) {
    const { call, query } = split(options);
    return this.c.call("get", "/v1/agents", {}, { ...call, query, holds: ["agents"] });
  }

  /** Every agent, page after page. */
  iter(options?: Omit<PageOptions, "cursor">): AsyncGenerator<Agent, void, undefined> {
    return pages((cursor) => this.list({ ...options, cursor }), "agents");
  }

  delete(id: string, options?: CallOptions): Promise<void> {
    return this.c.call("delete", AGENT, { agentId: id }, options);
  }

  /** Copy the agent (manifest, records, memories) to `newId`. Not sent again once it may have
   * applied: a second fork would find the copy there (409). */
  fork(id: string, newId: string, options?: CallOptions) {
    return this.c.call("post", `${AGENT}/-/fork`, { agentId: id }, { ...options, body: { id: newId } });
  }

  manifestVersions(id: string, options?: PageOptions) {
    const { call, query } = split(options);
    return this.c.call("get", `${AGENT}/-/manifest-versions`, { agentId: id }, { ...call, query, holds: ["versions"] });
  }

  manifestVersion(id: string, version: number, options?: CallOptions) {
    return this.c.call("get", `${AGENT}/-/manifest-versions/{version}`, { agentId: id, version }, options);
  }

  /** One search over the agent's records, file memories and history, best first (`types`:
   * some of records, memories, history). */
  search(id: string, query: string, options?: CallOptions & { types?: string | string[]; limit?: number }) {
    const { call, query: rest } = split(options);
    return this.c.call("get", `${AGENT}/-/search`, { agentId: id }, { ...call, query: { query, ...rest }, holds: ["hits"] });
  }

  /** `pendingVectors` (documents not yet findable by meaning) and `embeddingModel`. */
  indexStatus(id: string, options?: CallOptions) {
    return this.c.call("get", `${AGENT}/-/index`, { agentId: id }, options);
  }

  /** The names the agent's records, file memories and history mention, in key order, each
   * with its `count` and newest `items` mentioning it; `query` keeps the keys starting with it. */
  entities(id: string, options?: PageOptions & { query?: string; items?: number }) {
    const { call, query } = split(options);
    return this.c.call("get", `${AGENT}/-/entities`, { agentId: id }, { ...call, query, holds: ["entities"] });
  }

  /** Model calls and embeddings, newest first, with totals. */
  usage(id: string, options?: PageOptions & { turnId?: string }) {
    const { call, query } = split(options);
    return this.c.call("get", `${AGENT}/-/usage`, { agentId: id }, { ...call, query });
  }

  /** The native tools a turn begun now offers (name, description, input schema narrowed to
   * the manifest): see `toolDefinitions` to hand them to a model. */
  tools(id: string, options?: CallOptions) {
    return this.c.call("get", `${AGENT}/-/tools`, { agentId: id }, { ...options, holds: ["tools"] });
  }
}

export interface UpdateOptions extends CallOptions {
  /** Tries in all before a conflict is raised (default 5). */
  attempts?: number;
  /** Called after each lost race, with the attempt that lost (1, 2, ...). */
  onConflict?: (attempt: number) => void;
}

/** File memories under `/memories`. A path is `conventions/release.md` or
 * `/memories/conventions/release.md`; `.`, `..` and empty segments are refused before sending. */
export class Memories {
  constructor(private readonly c: Caller) {}

  /** Memories by path, without their content: `{ memories, next }`. */
  list(id: string, options?: PageOptions & { pathPrefix?: string }) {
    const { call, query } = split(options);
    return this.c.call("get", "/v1/agents/{agentId}/-/memories", { agentId: id }, { ...call, query, holds: ["memories"] });
  }

  iter(id: string, options?: Omit<PageOptions, "cursor"> & { pathPrefix?: string }): AsyncGenerator<MemorySummary, void, undefined> {
    return pages((cursor) => this.list(id, { ...options, cursor }), "memories");
  }

  /** Memories ranked by path, description and content (words and meaning). */
  async search(id: string, text: string, options?: CallOptions & { pathPrefix?: string; limit?: number }) {
    const { call, query } = split(options);
    const page = await this.c.call("get", "/v1/agents/{agentId}/-/memories", { agentId: id }, {
      ...call,
      query: { query: text, ...query },
      holds: ["memories"],
    });
    return page.memories;
  }

  /** One memory with its `content`. */
  get(id: string, path: string, options?: CallOptions) {
    return this.c.call("get", MEMORY, { agentId: id, path }, options);
  }

  /** Create or replace it whole. With `contentSha256`, only while the memory holds that content
   * (`""`: only while there is none), else `ApiError` 409 `memory_conflict` with the current
   * memory in `details.current`. */
  async put(
    id: string,
    path: string,
    content: string,
    options?: CallOptions & { contentSha256?: string },
  ): Promise<WrittenMemory> {
    const { call, query } = split(options);
    const body = query.contentSha256 === undefined ? { content } : { content, contentSha256: query.contentSha256 };
    try {
      return await this.c.call("put", MEMORY, { agentId: id, path }, { ...call, body });
    } catch (error) {
      if (query.contentSha256 !== undefined) {
        const mine = await alreadyWritten(content, error);
        if (mine) return mine;
      }
      throw error;
    }
  }

  /** Delete a memory; with `recursive`, a folder (`notes` or `notes/`) and every memory in it.
   * A folder without `recursive` is `ApiError` 400 `recursive_required`. */
  delete(id: string, path: string, options?: CallOptions & { recursive?: boolean }): Promise<void> {
    const { call, query } = split(options);
    return this.c.call("delete", MEMORY, { agentId: id, path }, { ...call, query: query.recursive ? { recursive: true } : undefined });
  }

  /** Every change, newest first (the agent's, or one path's): `{ versions, next }`. */
  versions(id: string, options?: PageOptions & { path?: string }) {
    const { call, query } = split(options);
    return this.c.call("get", "/v1/agents/{agentId}/-/memory-versions", { agentId: id }, { ...call, query, holds: ["versions"] });
  }

  iterVersions(id: string, options?: Omit<PageOptions, "cursor"> & { path?: string }) {
    return pages((cursor) => this.versions(id, { ...options, cursor }), "versions");
  }

  /** One version with the content it left (null for a delete). */
  version(id: string, versionId: string, options?: CallOptions) {
    return this.c.call("get", "/v1/agents/{agentId}/-/memory-versions/{version_id}", { agentId: id, version_id: versionId }, options);
  }

  /**
   * Compare-and-swap: read the memory, `change(content)` (null when there is none yet) gives
   * the new content, written only while the memory still holds what was read. When another
   * writer got there first (`memory_conflict`), `change` is given their content and tried
   * again, at most `attempts` times. `change` returning null leaves the memory as it is (the
   * result is then what was read, or null).
   */
  async update(
    id: string,
    path: string,
    change: (content: string | null) => string | null | Promise<string | null>,
    options: UpdateOptions = {},
  ): Promise<Memory | WrittenMemory | null> {
    const { attempts = 5, onConflict, ...call } = options;
    let current: Memory | null;
    try {
      current = await this.get(id, path, call);
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 404) throw error;
      current = null;
    }
    for (let attempt = 0; ; attempt++) {
      const next = await change(current ? current.content : null);
      if (next === null) return current;
      try {
        return await this.put(id, path, next, { ...call, contentSha256: current ? current.contentSha256 : "" });
      } catch (error) {
        if (!(error instanceof ApiError) || error.code !== "memory_conflict" || attempt + 1 >= attempts) throw error;
        onConflict?.(attempt + 1);
        // The conflict carries the memory as it now is (none: deleted meanwhile).
        const seen = error.details.current as Memory | null | undefined;
        current = seen ?? null;
      }
    }
  }
}

/** A compare-and-swap PUT sent again after its first try applied (its answer lost) finds its
 * own content there: that is the write done, not a conflict. */
async function alreadyWritten(content: string, error: unknown): Promise<WrittenMemory | null> {
  if (!(error instanceof ApiError) || error.code !== "memory_conflict") return null;
  const current = error.details.current as (WrittenMemory & { content?: string }) | null | undefined;
  if (!current) return null;
  if (typeof current.content === "string") return current.content === content ? current : null;
  return current.contentSha256 === (await sha256(content)) ? current : null;
}

async function sha256(text: string): Promise<string | null> {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) return null;
  const digest = await subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export interface RecordFilters {
  kind?: string | string[];
  labels?: { [label: string]: string };
  ids?: string[];
  status?: string | string[];
  scope?: string;
  sessionId?: string;
  preview?: string;
  pinned?: boolean;
}

/** Record memories, through the management API (a turn writes them with tools). */
export class Records {
  constructor(private readonly c: Caller) {}

  /** Newest first, or ranked by `query` (words, meaning, recency): `{ records, next }`. */
  list(id: string, options?: PageOptions & RecordFilters & { query?: string }) {
    const { call, query } = split(options);
    return this.c.call("get", "/v1/agents/{agentId}/-/records", { agentId: id }, { ...call, query, holds: ["records"] });
  }

  /** Every record the filters select, newest first. */
  iter(id: string, options?: Omit<PageOptions, "cursor"> & RecordFilters): AsyncGenerator<Record, void, undefined> {
    return pages((cursor) => this.list(id, { ...options, cursor }), "records");
  }

  /** The records that best match `text`, best first. */
  async search(id: string, text: string, options?: CallOptions & RecordFilters & { limit?: number }) {
    return (await this.list(id, { ...options, query: text })).records;
  }

  /** The record, whatever its status. */
  get(id: string, recordId: string, options?: CallOptions) {
    return this.c.call("get", "/v1/agents/{agentId}/-/records/{record_id}", { agentId: id, record_id: recordId }, options);
  }

  /** Delete at once; the deleted record (it and its versions stay readable). */
  delete(id: string, recordId: string, options?: CallOptions) {
    return this.c.call("delete", "/v1/agents/{agentId}/-/records/{record_id}", { agentId: id, record_id: recordId }, options);
  }

  /** Apply what a review's PENDING record proposes, against the memory as it is now; 409
   * `proposal_stale` or `proposal_restates` leaves it PENDING. */
  approve(id: string, recordId: string, options?: CallOptions) {
    return this.c.call("post", "/v1/agents/{agentId}/-/records/{record_id}/approve", { agentId: id, record_id: recordId }, options);
  }

  /** Refuse what a review's PENDING record proposes: it is kept REJECTED, never applied. */
  reject(id: string, recordId: string, options?: CallOptions) {
    return this.c.call("post", "/v1/agents/{agentId}/-/records/{record_id}/reject", { agentId: id, record_id: recordId }, options);
  }

  versions(id: string, recordId: string, options?: PageOptions) {
    const { call, query } = split(options);
    return this.c.call("get", "/v1/agents/{agentId}/-/records/{record_id}/versions", { agentId: id, record_id: recordId }, {
      ...call,
      query,
      holds: ["versions"],
    });
  }
}
