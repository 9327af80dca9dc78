/**
 * The service's shapes, by name, from the generated `schema.d.ts`: what each call answers is
 * the route's own response type (`Answer<route, method>`), so a route or model the service
 * changes and the client does not follow fails the type-check.
 */
import type { components, paths } from "./schema.js";

export type { components, paths };
type S = components["schemas"];

export type Route = keyof paths;
export type Method = "get" | "put" | "post" | "delete";

type Json<R> = R extends { content: { "application/json": infer J } } ? J : undefined;
type Ok<R> = R extends { 200: infer A } ? Json<A> : R extends { 201: infer A } ? Json<A> : undefined;

/** What `method` on `route` answers when it succeeds (`undefined` for a 204). */
export type Answer<P extends Route, M extends Method> = paths[P][M] extends { responses: infer R }
  ? Ok<R>
  : never;

export type Agent = S["Agent"];
export type AgentList = S["AgentList"];
export type ManifestDocument = S["ManifestDocument"];
export type ManifestVersion = S["ManifestVersion"];
export type ManifestVersionList = S["ManifestVersionList"];
export type NamedManifest = S["NamedManifest"];
export type NamedManifestList = S["NamedManifestList"];
export type NamedManifestVersion = S["NamedManifestVersion"];
export type NamedManifestVersionList = S["NamedManifestVersionList"];
export type Memory = S["FileMemory"];
export type MemorySummary = S["MemorySummary"];
export type MemoryList = S["MemoryList"];
export type WrittenMemory = S["PutMemoryOut"];
export type FileVersion = S["FileVersion"];
export type MemoryVersionList = S["MemoryVersionList"];
export type Record = S["Record"];
export type RecordList = S["RecordList"];
export type RecordVersion = S["RecordVersion"];
export type RecordVersionList = S["RecordVersionList"];
export type Session = S["Session"];
export type SessionList = S["SessionList"];
export type Turn = S["Turn"];
export type TurnDetail = S["TurnWithWrites"];
export type TurnList = S["TurnList"];
export type EventIn = S["EventIn"];
export type AppendOut = S["AppendOut"];
export type Recall = S["ToolRecallOut"];
export type Instructions = S["InstructionsOut"];
export type OfferedTool = S["OfferedTool"];
export type OfferedTools = S["OfferedTools"];
export type HistoryEvent = S["HistoryEvent"];
export type HistoryPage = S["HistoryPage"];
export type HistorySearchPage = S["HistorySearchPage"];
export type SearchHits = S["SearchHits"];
export type IndexStatus = S["IndexStatus"];
export type UsagePage = S["UsagePage"];
export type IngestOut = S["IngestOut"];
export type AuditEntry = S["AuditEntry"];
export type AuditList = S["AuditList"];
export type TenantLimits = S["TenantLimitsOut"];
export type Caller = S["ToolCaller"];

/** The native tools a turn offers, each with its input and output. */
export type ToolName =
  | "add_memory"
  | "read_memory"
  | "delete_memory"
  | "search_memory"
  | "search_history"
  | "memory";
/** A tool's input without `caller` (given apart, in the call's options). */
export type ToolInput<N extends ToolName> = WithoutCaller<S[`${N}.input`]>;
type WithoutCaller<T> = T extends unknown ? Omit<T, "caller"> : never;
export type ToolOutput<N extends ToolName> = S[`${N}.output`];

/** Per call: abort it, or give it its own timeout. */
export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

/** A page of a listing: `limit` (page size) and `cursor` (the previous page's `next`). */
export interface PageOptions extends CallOptions {
  limit?: number;
  cursor?: string;
}
