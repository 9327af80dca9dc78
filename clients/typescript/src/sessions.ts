/** `client.sessions`, `client.turns` (with `client.turns.tools`) and `client.history`. */
import { type Caller, pages, split } from "./core.js";
import type {
  CallOptions,
  Caller as ToolCaller,
  EventIn,
  HistoryEvent,
  PageOptions,
  Session,
  ToolInput,
  ToolName,
  ToolOutput,
  Turn,
} from "./types.js";

const SESSION = "/v1/agents/{agentId}/-/sessions/{session_id}";
const TURN = "/v1/agents/{agentId}/-/sessions/{session_id}/turns/{turn_id}";

export class Sessions {
  constructor(private readonly c: Caller) {}

  /** Start a session (`id`: choose its id; `metadata`: string values). Not sent again once it
   * may have applied. */
  create(agentId: string, options?: CallOptions & { id?: string; metadata?: { [key: string]: string } }) {
    const { call, query } = split(options);
    return this.c.call("post", "/v1/agents/{agentId}/-/sessions", { agentId }, { ...call, body: query });
  }

  get(agentId: string, sessionId: string, options?: CallOptions) {
    return this.c.call("get", SESSION, { agentId, session_id: sessionId }, options);
  }

  /** The agent's sessions, oldest first: `{ sessions, next }`. */
  list(agentId: string, options?: PageOptions) {
    const { call, query } = split(options);
    return this.c.call("get", "/v1/agents/{agentId}/-/sessions", { agentId }, { ...call, query, holds: ["sessions"] });
  }

  iter(agentId: string, options?: Omit<PageOptions, "cursor">): AsyncGenerator<Session, void, undefined> {
    return pages((cursor) => this.list(agentId, { ...options, cursor }), "sessions");
  }

  /** The memory index the session opens with (newest first, within the tenant's limits). */
  async memoryIndex(agentId: string, sessionId: string, options?: CallOptions): Promise<string> {
    const found = await this.c.call("get", `${SESSION}/memory-index`, { agentId, session_id: sessionId }, { ...options, holds: ["index"] });
    return found.index;
  }

  /** Refresh the session's memory index; the new index. */
  async compact(agentId: string, sessionId: string, options?: CallOptions): Promise<string> {
    const found = await this.c.call("post", `${SESSION}/compact`, { agentId, session_id: sessionId }, { ...options, holds: ["index"] });
    return found.index;
  }
}

export interface ToolCallOptions extends CallOptions {
  /** Who calls: the session's own agent unless said (`{ role: "agent" }`). */
  caller?: ToolCaller;
}

/** The native tools, called within a turn (`client.turns.tools`). A tool call is recorded as
 * an execution and a write is staged, so a call is never sent again once it may have applied. */
export class Tools {
  constructor(private readonly c: Caller) {}

  /** Call tool `name` with its input; the tool's output. */
  async call<N extends ToolName>(
    agentId: string,
    sessionId: string,
    turnId: string,
    name: N,
    input: ToolInput<N>,
    options?: ToolCallOptions,
  ): Promise<ToolOutput<N>> {
    const { caller, ...call } = options ?? {};
    const body = { ...input, caller: caller ?? { role: "agent" } };
    const found = await this.c.call("post", `${TURN}/tools/{name}`, { agentId, session_id: sessionId, turn_id: turnId, name }, {
      ...call,
      body,
      holds: ["output"],
    });
    return (found as unknown as { output: ToolOutput<N> }).output;
  }

  addMemory(agentId: string, sessionId: string, turnId: string, input: ToolInput<"add_memory">, options?: ToolCallOptions) {
    return this.call(agentId, sessionId, turnId, "add_memory", input, options);
  }

  readMemory(agentId: string, sessionId: string, turnId: string, input: ToolInput<"read_memory">, options?: ToolCallOptions) {
    return this.call(agentId, sessionId, turnId, "read_memory", input, options);
  }

  deleteMemory(agentId: string, sessionId: string, turnId: string, input: ToolInput<"delete_memory">, options?: ToolCallOptions) {
    return this.call(agentId, sessionId, turnId, "delete_memory", input, options);
  }

  searchMemory(agentId: string, sessionId: string, turnId: string, input: ToolInput<"search_memory">, options?: ToolCallOptions) {
    return this.call(agentId, sessionId, turnId, "search_memory", input, options);
  }

  searchHistory(agentId: string, sessionId: string, turnId: string, input: ToolInput<"search_history">, options?: ToolCallOptions) {
    return this.call(agentId, sessionId, turnId, "search_history", input, options);
  }

  /** The file memory tool: `command` (view, create, str_replace, insert, delete, rename) with
   * Anthropic's memory tool's parameters; `{ result }`. */
  memory(agentId: string, sessionId: string, turnId: string, input: ToolInput<"memory">, options?: ToolCallOptions) {
    return this.call(agentId, sessionId, turnId, "memory", input, options);
  }
}

export interface BeginOptions extends CallOptions {
  /** The turn's id (the service makes one when left out). */
  id?: string;
  preview?: boolean;
  replayOf?: string;
  startedBy?: "person" | "app" | "trigger" | "wake";
  triggerRunId?: string;
}

export class Turns {
  readonly tools: Tools;

  constructor(private readonly c: Caller) {
    this.tools = new Tools(c);
  }

  /** Begin the session's next turn; it runs the agent's current manifest version. */
  begin(agentId: string, sessionId: string, options?: BeginOptions) {
    const { call, query } = split(options);
    const body = {
      id: query.id,
      preview: query.preview,
      replay_of: query.replayOf,
      started_by: query.startedBy,
      trigger_run_id: query.triggerRunId,
    };
    return this.c.call("post", `${SESSION}/turns`, { agentId, session_id: sessionId }, { ...call, body: defined(body) });
  }

  /** The turn with what it staged (`memories`, `executions`, ...). */
  get(agentId: string, sessionId: string, turnId: string, options?: CallOptions) {
    return this.c.call("get", TURN, { agentId, session_id: sessionId, turn_id: turnId }, options);
  }

  /** The session's turns in order, any status: `{ turns, next }`. */
  list(agentId: string, sessionId: string, options?: PageOptions) {
    const { call, query } = split(options);
    return this.c.call("get", `${SESSION}/turns`, { agentId, session_id: sessionId }, { ...call, query, holds: ["turns"] });
  }

  iter(agentId: string, sessionId: string, options?: Omit<PageOptions, "cursor">): AsyncGenerator<Turn, void, undefined> {
    return pages((cursor) => this.list(agentId, sessionId, { ...options, cursor }), "turns");
  }

  /** Apply the turn's staged writes and keep its events; queues post-turn extraction. */
  commit(agentId: string, sessionId: string, turnId: string, options?: CallOptions) {
    return this.c.call("post", `${TURN}/commit`, { agentId, session_id: sessionId, turn_id: turnId }, options);
  }

  /** End the turn applying nothing. */
  rollback(agentId: string, sessionId: string, turnId: string, options?: CallOptions) {
    return this.c.call("post", `${TURN}/rollback`, { agentId, session_id: sessionId, turn_id: turnId }, options);
  }

  /** Queue a failed post-turn review again. */
  rerunExtraction(agentId: string, sessionId: string, turnId: string, options?: CallOptions) {
    return this.c.call("post", `${TURN}/extraction`, { agentId, session_id: sessionId, turn_id: turnId }, options);
  }

  /** Append the turn's messages (roles user, assistant, tool_result, error) for history and
   * extraction. Sent again after a lost answer only when every event names its `sequence`:
   * the service keeps each (turn, sequence) once. */
  events(agentId: string, sessionId: string, turnId: string, events: EventIn[], options?: CallOptions) {
    const safe = events.every((event) => event.sequence !== undefined && event.sequence !== null);
    return this.c.call("post", `${TURN}/events`, { agentId, session_id: sessionId, turn_id: turnId }, {
      ...options,
      body: { events },
      retry: safe,
    });
  }

  /** The memory part of the turn's instructions: `instructions` (text), `pinned`, `tools`. */
  instructions(agentId: string, sessionId: string, turnId: string, options?: CallOptions) {
    return this.c.call("get", `${TURN}/instructions`, { agentId, session_id: sessionId, turn_id: turnId }, options);
  }

  /** The records that best match the turn's context: `records`, and `text`, a block marked as
   * memory data to put before the model call. */
  recall(agentId: string, sessionId: string, turnId: string, context: string, options?: ToolCallOptions) {
    const { caller, ...call } = options ?? {};
    const body = caller ? { context, caller } : { context };
    return this.c.call("post", `${TURN}/recall`, { agentId, session_id: sessionId, turn_id: turnId }, { ...call, body });
  }
}

export interface HistoryWindow {
  fromTurn?: number;
  toTurn?: number;
  /** Comma-separated roles. */
  role?: string;
}

/** A session's kept events, and search across the agent's sessions (`client.history`). */
export class History {
  constructor(private readonly c: Caller) {}

  /** Kept events of committed turns, in order: `{ events, next }`. */
  list(agentId: string, sessionId: string, options?: PageOptions & HistoryWindow) {
    const { call, query } = split(options);
    return this.c.call("get", `${SESSION}/history`, { agentId, session_id: sessionId }, { ...call, query, holds: ["events"] });
  }

  iter(agentId: string, sessionId: string, options?: Omit<PageOptions, "cursor"> & HistoryWindow): AsyncGenerator<HistoryEvent, void, undefined> {
    return pages((cursor) => this.list(agentId, sessionId, { ...options, cursor }), "events");
  }

  /** Events of the agent's committed turns across its sessions, best first (`sessionId` keeps
   * one session; `fromTime`/`toTime`: ISO 8601); `next` pages on. */
  search(agentId: string, query: string, options?: PageOptions & { sessionId?: string; fromTime?: string; toTime?: string }) {
    const { call, query: rest } = split(options);
    return this.c.call("get", "/v1/agents/{agentId}/-/history", { agentId }, { ...call, query: { query, ...rest }, holds: ["events"] });
  }

  /** The whole session: each turn, then its events (the JSON Lines, an object each). */
  async export(agentId: string, sessionId: string, options?: CallOptions): Promise<{ [key: string]: unknown }[]> {
    const lines = await this.c.call("get", `${SESSION}/export`, { agentId, session_id: sessionId }, { ...options, lines: true });
    return lines as unknown as { [key: string]: unknown }[];
  }
}

function defined<T extends object>(body: T): Partial<T> {
  return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)) as Partial<T>;
}
