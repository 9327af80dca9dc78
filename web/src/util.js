// Small helpers the pages share: the hash route, dates, and loading state.

import { useCallback, useEffect, useRef, useState } from "preact/hooks";


// Routes live in the hash (`#/agents/teams/web/-/memory/notes/a.md`): a reload or a shared
// link opens the same view, and no server route is needed beyond `/`. A past view of an agent
// adds `?asOf=<ISO time>`; a `?` inside a path is encoded (%3F), so the first bare `?` starts it.
export function parseHash(hash) {
  const raw = hash.replace(/^#/, "");
  const mark = raw.indexOf("?");
  const path = decodePath(mark < 0 ? raw : raw.slice(0, mark)) || "/agents";
  const asOf = new URLSearchParams(mark < 0 ? "" : raw.slice(mark + 1)).get("asOf") || "";
  return { path, asOf };
}

export function useHash() {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const changed = () => setHash(location.hash);
    addEventListener("hashchange", changed);
    return () => removeEventListener("hashchange", changed);
  }, []);
  return parseHash(hash);
}

// Each segment on its own: a memory path may hold `#`, `?` or `%`, which must not end the hash.
const encodePath = (path) => path.split("/").map(encodeURIComponent).join("/");
const decodePath = (text) =>
  text
    .split("/")
    .map((part) => {
      try {
        return decodeURIComponent(part);
      } catch {
        return part;
      }
    })
    .join("/");

// `/agents/<id>/-/` of an agent's route, or null.
const agentPrefix = (path) => {
  const match = path.match(/^\/agents\/.+?\/-\//);
  return match ? match[0] : null;
};

// A link within the agent's page keeps the past view it is shown in, so that following it never
// slips back to now unnoticed; a link elsewhere (another agent, the Agents page) drops it.
const keptAsOf = (path) => {
  const here = parseHash(location.hash);
  const prefix = agentPrefix(here.path);
  return here.asOf && prefix && path.startsWith(prefix) ? here.asOf : "";
};

export const href = (path, asOf = keptAsOf(path)) =>
  "#" + encodePath(path) + (asOf ? "?asOf=" + encodeURIComponent(asOf) : "");

// `asOf`: the past instant to show ("" for now); left out, a past view is kept as href keeps it.
export const navigate = (path, asOf) => {
  location.hash = href(path, asOf);
};

export function when(iso) {
  if (!iso) return "";
  const date = new Date(iso);
  return isNaN(date) ? String(iso) : date.toLocaleString();
}

export function ago(iso) {
  if (!iso) return "";
  const seconds = (Date.now() - new Date(iso).getTime()) / 1000;
  if (!isFinite(seconds)) return String(iso);
  if (seconds < 45) return "just now";
  const steps = [
    [60, "minute"],
    [3600, "hour"],
    [86400, "day"],
    [2592000, "month"],
    [31536000, "year"],
  ];
  let unit = "second";
  let size = 1;
  for (const [limit, name] of steps) {
    if (seconds >= limit) {
      unit = name;
      size = limit;
    }
  }
  const count = Math.round(seconds / size);
  return `${count} ${unit}${count === 1 ? "" : "s"} ago`;
}

// Loads `load()` whenever one of `deps` changes; the last answer wins, so a slow earlier
// request cannot overwrite a newer one. `reload()` asks again with the same inputs.
export function useLoad(load, deps) {
  const [state, setState] = useState({ loading: true, data: null, error: null });
  const serial = useRef(0);
  const run = useCallback(() => {
    const mine = ++serial.current;
    setState((old) => ({ ...old, loading: true }));
    load().then(
      (data) => mine === serial.current && setState({ loading: false, data, error: null }),
      (error) => mine === serial.current && setState({ loading: false, data: null, error }),
    );
  }, deps);
  useEffect(run, [run]);
  return { ...state, reload: run };
}

export const pretty = (value) => JSON.stringify(value, null, 2);

// A detail pane opened below its list (narrow screens) is scrolled to, or it would open unseen.
export function useReveal() {
  const ref = useRef(null);
  useEffect(() => {
    if (ref.current && matchMedia("(max-width: 1099px)").matches) {
      ref.current.scrollIntoView({ block: "start" });
    }
  }, []);
  return ref;
}
