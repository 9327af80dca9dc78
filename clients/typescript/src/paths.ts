/**
 * The URL paths the client sends, checked before a request leaves.
 *
 * Agent ids and memory paths travel as plain segments (`/v1/agents/teams/web/-/memories/a/b.md`),
 * so a `..` segment in either would be resolved by the HTTP stack into another route: a memory
 * write would land on the agent route and save a manifest. Such a path is refused with
 * `InvalidPath` and nothing is sent. The rules are the Python SDK's (`client/paths.py`).
 */
import { InvalidPath } from "./errors.js";

const DOTS = new Set([".", ".."]);

/** The agent id, checked: segments such as teams/web/releases, none empty, `.` or `..`. */
export function agentId(id: string): string {
  if (!id || id.split("/").some((s) => s === "" || DOTS.has(s))) {
    throw new InvalidPath(
      id,
      "an agent id is segments such as teams/web/releases, none of them empty, '.' or '..'",
      "agent id",
    );
  }
  return id;
}

/** The memory path after /memories/, as the service reads it: `conventions/release.md` and
 * `/memories/conventions/release.md` are the same memory; `memories/notes.md` is relative (so
 * `/memories/memories/notes.md`); another absolute path stays absolute, for the service to
 * refuse. A folder may end in `/`. */
export function memoryPath(path: string): string {
  let relative = path.trim();
  if (relative.startsWith("/memories/")) relative = relative.slice("/memories/".length);
  if (!relative) throw new InvalidPath(path, "name a memory such as notes/release.md");
  let inner = relative.startsWith("/") ? relative.slice(1) : relative;
  if (inner.endsWith("/")) inner = inner.slice(0, -1);
  const segments = inner.split("/");
  if (segments.some((s) => DOTS.has(s))) {
    throw new InvalidPath(
      path,
      "'.' and '..' segments are not allowed: name the memory by its path from /memories",
    );
  }
  if (segments.includes("")) throw new InvalidPath(path, "empty segments (//) are not allowed");
  return relative;
}

/** Refuse a request path with a `.` or `..` segment (an id given where it should not be). */
export function noDotSegments(path: string): void {
  if (path.split("/").some((s) => DOTS.has(s))) {
    throw new InvalidPath(path, "a '.' or '..' segment would reach another route", "URL path");
  }
}

/** Percent-encode everything outside the unreserved set (`%`, `?`, `#`, spaces, non-ASCII),
 * keeping `/` when `keepSlash`: as Python's `quote(path, safe="/-._~")`. */
export function encode(value: string, keepSlash: boolean): string {
  const encoded = encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return keepSlash ? encoded.replace(/%2F/g, "/") : encoded;
}

/** A manifest document without `$schema` (an editor's hint, not a setting), as saved. */
export function withoutSchema<T>(manifest: T): T {
  if (manifest && typeof manifest === "object" && !Array.isArray(manifest) && "$schema" in manifest) {
    const { $schema: _hint, ...rest } = manifest as Record<string, unknown>;
    return rest as T;
  }
  return manifest;
}
