// The HTTP API, called with the token the user pasted. The token lives in sessionStorage only
// (gone when the tab closes) and travels in the Authorization header, never in a URL.

const TOKEN_KEY = "agent-memory.token";

export const getToken = () => sessionStorage.getItem(TOKEN_KEY);
export const setToken = (token) => sessionStorage.setItem(TOKEN_KEY, token);
export const clearToken = () => sessionStorage.removeItem(TOKEN_KEY);

export class ApiError extends Error {
  constructor(status, body) {
    const error = (body && body.error) || {};
    super(error.message || `HTTP ${status}`);
    this.status = status;
    this.code = error.code || "http_error";
    this.body = body;
  }
}

// Agent ids and memory paths travel as plain path segments (see the README): each segment is
// encoded on its own so that the slashes between them stay slashes.
export const segments = (text) =>
  text.replace(/^\/+/, "").split("/").map(encodeURIComponent).join("/");

export const agentPath = (agentId, rest = "") =>
  `/v1/agents/${segments(agentId)}${rest ? "/-/" + rest : ""}`;

const query = (params) => {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params || {})) {
    if (value !== undefined && value !== null && value !== "") search.set(name, String(value));
  }
  const text = search.toString();
  return text ? "?" + text : "";
};

let onUnauthorized = () => {};
export const whenUnauthorized = (handler) => {
  onUnauthorized = handler;
};

export async function request(method, path, { body, params, token } = {}) {
  const headers = { Authorization: `Bearer ${token || getToken() || ""}` };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(path + query(params), {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = { error: { code: "not_json", message: text.slice(0, 200) } };
  }
  if (!response.ok) {
    if (response.status === 401 && !token) onUnauthorized();
    throw new ApiError(response.status, data);
  }
  return data;
}

export const get = (path, params) => request("GET", path, { params });

// Every page of a paged listing (`{<key>: [...], next}`), up to `max` items.
export async function getAll(path, key, params = {}, max = 1000) {
  const items = [];
  let cursor;
  do {
    const page = await get(path, { ...params, limit: 100, cursor });
    items.push(...(page[key] || []));
    cursor = page.next;
  } while (cursor && items.length < max);
  return items;
}
