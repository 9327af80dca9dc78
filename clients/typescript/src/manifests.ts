/** `client.agentManifests`: named manifests, which agents follow with
 * `client.agents.put(id, { manifest: name })`. */
import { type Caller, pages, split } from "./core.js";
import { AgentMemoryError } from "./errors.js";
import type { CallOptions, NamedManifest, PageOptions } from "./types.js";

const NAMED = "/v1/agent-manifests/{manifest_name}";

/** A manifest document as a file holds it: `name`, `harness`, and what else it says. */
export type ManifestFile = { name?: string; $schema?: string; [key: string]: unknown };

export class AgentManifests {
  constructor(private readonly c: Caller) {}

  /** Save `document` (`{ name, harness, ... }`) as the next version of its name (or of
   * `options.name`); every agent that follows the name moves to it. `$schema` is left out. */
  save(document: ManifestFile, options?: CallOptions & { name?: string }) {
    const { call, query } = split(options);
    const name = query.name ?? document.name;
    if (typeof name !== "string" || !name) {
      return Promise.reject(
        new AgentMemoryError(null, "invalid_manifest_name", 'a named manifest needs a name: document.name or { name }'),
      );
    }
    const { $schema: _hint, name: _name, ...body } = document;
    return this.c.call("put", NAMED, { manifest_name: name }, { ...call, body });
  }

  get(name: string, options?: CallOptions) {
    return this.c.call("get", NAMED, { manifest_name: name }, options);
  }

  /** `{ manifests, next }`. */
  list(options?: PageOptions) {
    const { call, query } = split(options);
    return this.c.call("get", "/v1/agent-manifests", {}, { ...call, query, holds: ["manifests"] });
  }

  iter(options?: Omit<PageOptions, "cursor">): AsyncGenerator<NamedManifest, void, undefined> {
    return pages((cursor) => this.list({ ...options, cursor }), "manifests");
  }

  versions(name: string, options?: PageOptions) {
    const { call, query } = split(options);
    return this.c.call("get", `${NAMED}/versions`, { manifest_name: name }, { ...call, query, holds: ["versions"] });
  }

  version(name: string, version: number, options?: CallOptions) {
    return this.c.call("get", `${NAMED}/versions/{version}`, { manifest_name: name, version }, options);
  }

  /** Delete the name; `ApiError` 409 `manifest_in_use` while an agent follows it. */
  delete(name: string, options?: CallOptions): Promise<void> {
    return this.c.call("delete", NAMED, { manifest_name: name }, options);
  }
}
