/**
 * What every namespace calls through: `Caller.call(method, route, params, options)` fills the
 * route's template (the OpenAPI path, so a renamed route fails the type-check), checks and
 * encodes its segments, sends it with the client's retries, and answers the route's type.
 */
import { InvalidPath, UnexpectedResponse } from "./errors.js";
import { agentId, memoryPath, noDotSegments } from "./paths.js";
import type { RequestOptions } from "./transport.js";
import type { Answer, Method, Route } from "./types.js";

export type Params = { [name: string]: string | number };

export interface Sender {
  request(method: string, path: string, options?: RequestOptions): Promise<unknown>;
}

/** The URL path of `template` with its `{name}`s filled, not yet encoded: an agent id and a
 * memory path are checked (they travel as plain segments, `/` kept); a manifest name is one
 * segment; any `.`/`..` segment is refused. `Client.request` encodes the rest. */
export function fill(template: string, params: Params): string {
  const path = template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new TypeError(`no ${name} for ${template}`);
    const text = String(value);
    if (name === "agentId") return agentId(text);
    if (name === "path") return memoryPath(text);
    if (name === "manifest_name" && (!text || text === "." || text === ".." || text.includes("/"))) {
      throw new InvalidPath(text, "a manifest name is one segment such as releases", "manifest name");
    }
    return text;
  });
  noDotSegments(path);
  return path;
}

export class Caller {
  constructor(readonly sender: Sender) {}

  /** `method` on `route` with `params` filled in; the answer as the route declares it. `holds`:
   * keys the answer must have (a page's list), else it is an `UnexpectedResponse`. */
  async call<P extends Route, M extends Method>(
    method: M,
    route: P,
    params: Params,
    options: RequestOptions & { holds?: string[] } = {},
  ): Promise<Answer<P, M>> {
    const { holds, ...rest } = options;
    const verb = method.toUpperCase();
    const path = fill(route, params);
    const found = await this.sender.request(verb, path, rest);
    if (holds) {
      const where = `${verb} ${path}`;
      if (!found || typeof found !== "object" || Array.isArray(found)) {
        throw new UnexpectedResponse(null, where, `not a JSON object: ${String(found).slice(0, 80)}`);
      }
      const missing = holds.filter((key) => !(key in found));
      if (missing.length) throw new UnexpectedResponse(null, where, `no ${missing.join(", ")} in it`);
    }
    return found as Answer<P, M>;
  }
}

/** Every item of a listing, page after page: `first(cursor)` fetches a page, `key` names its
 * items. Stops at the page without `next`. */
export async function* pages<K extends string, T>(
  fetchPage: (cursor: string | undefined) => Promise<{ [key in K]: T[] } & { next?: string | null }>,
  key: K,
): AsyncGenerator<T, void, undefined> {
  let cursor: string | undefined;
  for (;;) {
    const page = await fetchPage(cursor);
    yield* page[key];
    if (!page.next) return;
    cursor = page.next;
  }
}

/** The options of a call without the page and call options (what goes in the query). */
export function split<T extends { signal?: AbortSignal; timeoutMs?: number }>(options: T | undefined) {
  const { signal, timeoutMs, ...query } = options ?? ({} as T);
  return { call: { signal, timeoutMs }, query: query as Omit<T, "signal" | "timeoutMs"> };
}
