export { Client, Audit, Tenant, type ClientOptions, type IngestMessage } from "./client.js";
export { Agents, Memories, Records, type RecordFilters, type UpdateOptions } from "./agents.js";
export { AgentManifests, type ManifestFile } from "./manifests.js";
export { History, Sessions, Tools, Turns, type BeginOptions, type HistoryWindow, type ToolCallOptions } from "./sessions.js";
export { AgentMemoryError, ApiError, ConnectionFailed, InvalidPath, UnexpectedResponse } from "./errors.js";
export { DEFAULT_RETRY, type FetchLike, type RequestOptions, type RetryPolicy } from "./transport.js";
export * from "./types.js";
export {
  TurnRunner,
  functionTools,
  memoryTool,
  recordTools,
  runTool,
  toolDefinitions,
  type FunctionTool,
  type MemoryCommand,
  type MemoryToolHandlers,
  type MemoryToolOptions,
  type ToolDefinition,
  type TurnRef,
} from "./harness.js";
