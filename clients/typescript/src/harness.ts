/**
 * Helpers for a harness that runs a model itself: the record tools as definitions any model
 * API takes, a tool call answered by the service, turns run one call each (`TurnRunner`), and
 * Anthropic's memory tool (`memoryTool`) backed by the service's `memory` tool.
 */
import type { Client } from "./client.js";
import { AgentMemoryError, ApiError } from "./errors.js";
import type { Caller, OfferedTool, ToolInput, ToolName } from "./types.js";

/** A tool as Anthropic's Messages API takes it (`input_schema`). */
export interface ToolDefinition {
  name: string;
  description: string;
  input_schema: { [key: string]: unknown };
}

/** A tool as OpenAI's Chat Completions (and the APIs shaped like it) take it. */
export interface FunctionTool {
  type: "function";
  function: { name: string; description: string; parameters: { [key: string]: unknown } };
}

/** The record tools a turn of `agentId` begun now offers (name, description, and the input
 * schema the service narrows to the agent's manifest), as Anthropic's API takes tools. The
 * file memory tool (`memory`) is left out unless `includeMemory`: Claude has its own
 * (`memoryTool`). */
export async function recordTools(
  client: Client,
  agentId: string,
  options: { includeMemory?: boolean; signal?: AbortSignal } = {},
): Promise<ToolDefinition[]> {
  const { tools } = await client.agents.tools(agentId, { signal: options.signal });
  return toolDefinitions(tools.filter((tool) => options.includeMemory || tool.name !== "memory"));
}

/** Offered tools (from `client.agents.tools` or a turn's `instructions`) as Anthropic's API
 * takes them. */
export function toolDefinitions(tools: OfferedTool[]): ToolDefinition[] {
  return tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.inputSchema }));
}

/** Offered tools as function tools (OpenAI's Chat Completions, the Vercel AI SDK's
 * `jsonSchema`, ...). */
export function functionTools(tools: OfferedTool[]): FunctionTool[] {
  return tools.map((tool) => ({
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
  }));
}

/** Where a turn's tool calls go. */
export interface TurnRef {
  agentId: string;
  sessionId: string;
  turnId: string;
  caller?: Caller;
}

/** What a model's tool call is answered with: `content` (the tool's output as JSON, or the
 * service's error message) and `isError`. A refused call (a 4xx) is the model's to read, not
 * an exception; a failed connection or a 5xx still throws. */
export async function runTool(
  client: Client,
  turn: TurnRef,
  name: string,
  input: unknown,
  options: { signal?: AbortSignal } = {},
): Promise<{ content: string; isError: boolean }> {
  try {
    const output = await client.turns.tools.call(
      turn.agentId,
      turn.sessionId,
      turn.turnId,
      name as ToolName,
      (input ?? {}) as ToolInput<ToolName>,
      { caller: turn.caller, signal: options.signal },
    );
    return { content: JSON.stringify(output), isError: false };
  } catch (error) {
    if (error instanceof ApiError && error.status !== null && error.status < 500) {
      return { content: error.message, isError: true };
    }
    throw error;
  }
}

/**
 * Runs work in turns of one session of `agentId`, for callers with no turns of their own
 * (Claude's memory tool run by the SDK, an MCP client): each `run` begins a turn, runs the
 * work, and commits at once, so a write is visible to the next call with its provenance. A
 * failure (or a refused commit) rolls the turn back: nothing of it applies.
 * `sessionId`: the session to use, made when it does not exist yet; none: one is made on the
 * first call and kept.
 */
export class TurnRunner {
  private session: Promise<string> | null = null;

  constructor(
    readonly client: Client,
    readonly agentId: string,
    private readonly wanted?: string,
  ) {}

  /** The session the runner's turns belong to (made on first use). */
  sessionId(): Promise<string> {
    this.session ??= this.open().catch((error: unknown) => {
      this.session = null;
      throw error;
    });
    return this.session;
  }

  private async open(): Promise<string> {
    if (this.wanted === undefined) return (await this.client.sessions.create(this.agentId)).id;
    try {
      await this.client.sessions.create(this.agentId, { id: this.wanted });
    } catch (error) {
      // Already there: a named session is joined, not refused.
      if (!(error instanceof ApiError) || error.status !== 409) throw error;
    }
    return this.wanted;
  }

  /** Begin a turn, run `work(sessionId, turnId)`, then commit it (or, with `commit` false,
   * roll it back: a read that must leave nothing). */
  async run<T>(work: (sessionId: string, turnId: string) => Promise<T>, options: { commit?: boolean } = {}): Promise<T> {
    const session = await this.sessionId();
    const turn = (await this.client.turns.begin(this.agentId, session)).id;
    let result: T;
    try {
      result = await work(session, turn);
    } catch (error) {
      await this.rollBack(session, turn);
      throw error;
    }
    if (options.commit === false) {
      await this.rollBack(session, turn);
      return result;
    }
    try {
      await this.client.turns.commit(this.agentId, session, turn);
    } catch (error) {
      // A refused commit (such as 409 memory_conflict) applied nothing: end the turn.
      if (error instanceof ApiError) await this.rollBack(session, turn);
      throw error;
    }
    return result;
  }

  private async rollBack(session: string, turn: string): Promise<void> {
    try {
      await this.client.turns.rollback(this.agentId, session, turn);
    } catch {
      // The turn ended another way (or the service is gone): the first error is the one told.
    }
  }
}

/** One of the memory tool's commands, as Claude sends them. */
export type MemoryCommand = ToolInput<"memory">;
type CommandName = "view" | "create" | "str_replace" | "insert" | "delete" | "rename";

/** The six handlers `betaMemoryTool(handlers)` of `@anthropic-ai/sdk/helpers/beta/memory`
 * takes, answered by the service; and `clearAllMemory`. */
export type MemoryToolHandlers = {
  [K in CommandName]: (command: MemoryCommand & { command: K }) => Promise<string>;
} & { clearAllMemory(): Promise<string> };

export interface MemoryToolOptions {
  /** Commands run in this session (made when absent), a committed turn each. */
  sessionId?: string;
  /** With `sessionId`: commands join this open turn, which the harness commits. */
  turnId?: string;
  caller?: Caller;
}

/**
 * Claude's memory tool, stored in agent `agentId`: hand the result to the Anthropic SDK's
 * `betaMemoryTool(...)` and give that to `client.beta.messages.toolRunner({ tools })`. Each of
 * Claude's commands (view, create, str_replace, insert, delete, rename) runs through the
 * service's `memory` tool, so what Claude writes gets versions, compare-and-swap against
 * other writers and the session's memory index; the answers are the service's texts. A
 * refused command throws an `Error` with the service's text, which the tool runner hands to
 * Claude as an error result. As the Python `AgentMemoryTool`.
 */
export function memoryTool(client: Client, agentId: string, options: MemoryToolOptions = {}): MemoryToolHandlers {
  if (options.turnId !== undefined && options.sessionId === undefined) {
    throw new TypeError("turnId needs the sessionId the turn belongs to");
  }
  const runner = new TurnRunner(client, agentId, options.sessionId);
  const run = async (command: MemoryCommand): Promise<string> => {
    const call = (session: string, turn: string) =>
      client.turns.tools.memory(agentId, session, turn, command, { caller: options.caller });
    try {
      const output =
        options.turnId !== undefined
          ? await call(await runner.sessionId(), options.turnId)
          : await runner.run(call);
      return String(output.result);
    } catch (error) {
      // The service's message is the text the memory tool answers a failure with.
      if (error instanceof ApiError) throw new Error(error.message, { cause: error });
      if (error instanceof AgentMemoryError && error.code === "connection_failed") {
        throw new Error(`Error: the memory service did not answer: ${error.message}`, { cause: error });
      }
      throw error;
    }
  };
  return {
    view: run,
    create: run,
    str_replace: run,
    insert: run,
    delete: run,
    rename: run,
    /** Delete every memory of the agent at once, through the management API. */
    async clearAllMemory() {
      const paths: string[] = [];
      for await (const memory of client.agents.memories.iter(agentId)) paths.push(memory.path);
      for (const path of paths) await client.agents.memories.delete(agentId, path);
      return `Deleted ${paths.length} memories`;
    },
  };
}
