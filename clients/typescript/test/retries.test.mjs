// Which failures the client sends again, and how long it waits: the cases of the Python SDK's
// tests/unit/test_sdk_retries.py and test_sdk_errors.py, over a fake fetch that answers as a
// throttled or failing server would. No server, no network.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import { test } from "node:test";
import { AgentMemoryError, ApiError, Client, ConnectionFailed, InvalidPath, UnexpectedResponse } from "../dist/esm/index.js";

const FAST = { attempts: 4, backoffMs: 10, maxBackoffMs: 20 };
const AGENT = {
  id: "a",
  manifestVersion: 1,
  manifest: {},
  createdAt: "2026-12-01T00:00:00Z",
  updatedAt: "2026-12-01T00:00:00Z",
};

/** A fetch that answers each request with the next of `steps` (a Response, or an error to
 * reject with), keeping what it was sent. */
function script(...steps) {
  const seen = [];
  const fetch = async (url, init) => {
    seen.push({ url, ...init });
    if (!steps.length) throw new Error("no more answers scripted");
    const step = steps.shift();
    if (step instanceof Error) throw step;
    return step;
  };
  return { fetch, seen };
}

const json = (status, body, headers = {}) =>
  new Response(body === undefined ? null : JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...headers } });
const error = (status, code, headers = {}) => json(status, { error: { code, message: `${code} said` } }, headers);
/** How undici rejects when the connection never opened, and when the answer was lost. */
const refused = () => new TypeError("fetch failed", { cause: Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }) });
const lost = () => new TypeError("fetch failed", { cause: Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" }) });

function client(fake, retries = FAST) {
  return new Client({ baseUrl: "http://sdk.test", token: "t", fetch: fake.fetch, retries });
}

test("a 429 is sent again after its Retry-After", async () => {
  // Given a server that throttles the first try and asks for a second's wait
  const fake = script(error(429, "throttled", { "Retry-After": "1" }), json(200, AGENT));
  const started = performance.now();
  // When the agent is read
  const agent = await client(fake).agents.get("a");
  // Then the second try answered, after the wait the server asked for (not the 10 ms backoff)
  assert.equal(agent.id, "a");
  assert.equal(fake.seen.length, 2);
  assert.ok(performance.now() - started >= 950);
});

test("a Retry-After given as an HTTP date is honoured", async () => {
  const when = new Date(Date.now() + 1500).toUTCString(); // whole seconds: waits 0.5-1.5 s
  const fake = script(error(429, "throttled", { "Retry-After": when }), json(200, AGENT));
  const started = performance.now();
  await client(fake).agents.get("a");
  assert.ok(performance.now() - started >= 400);
  assert.equal(fake.seen.length, 2);
});

test("a POST that got a 503 is not sent again", async () => {
  // A 503 may come after the server applied the call: beginning a turn twice would make two.
  const fake = script(error(503, "storage_unavailable"), json(201, {}));
  const caught = await client(fake).turns.begin("a", "s").catch((e) => e);
  assert.ok(caught instanceof ApiError);
  assert.equal(caught.status, 503);
  assert.equal(caught.code, "storage_unavailable");
  assert.equal(caught.message, "storage_unavailable said");
  assert.equal(fake.seen.length, 1);
});

test("a POST whose answer was lost is not sent again", async () => {
  const fake = script(lost(), json(200, {}));
  const caught = await client(fake).turns.commit("a", "s", "t").catch((e) => e);
  assert.ok(caught instanceof ConnectionFailed && caught instanceof AgentMemoryError);
  assert.equal(caught.status, null);
  assert.equal(caught.code, "connection_failed");
  assert.ok(caught.message.includes("other side closed"));
  assert.equal(fake.seen.length, 1);
});

test("a POST that never left is sent again", async () => {
  // A refused connection: nothing reached the server, so even a commit may go again.
  const turn = { ...AGENT, agentId: "a", sessionId: "s", sequence: 1, status: "committed" };
  const fake = script(refused(), json(200, turn));
  const committed = await client(fake).turns.commit("a", "s", "a");
  assert.equal(committed.status, "committed");
  assert.equal(fake.seen.length, 2);
});

test("a GET is sent again after a 503 and a lost answer", async () => {
  const fake = script(error(503, "storage_unavailable"), lost(), json(200, AGENT));
  assert.equal((await client(fake).agents.get("a")).id, "a");
  assert.equal(fake.seen.length, 3);
});

test("appended events go again only when each names its sequence", async () => {
  const numbered = script(error(503, "storage_unavailable"), json(200, { kept: 1 }));
  const events = [{ role: "user", text: "hi", sequence: 1 }];
  assert.deepEqual(await client(numbered).turns.events("a", "s", "t", events), { kept: 1 });
  assert.equal(numbered.seen.length, 2);

  const unnumbered = script(error(503, "storage_unavailable"), json(200, { kept: 1 }));
  await assert.rejects(client(unnumbered).turns.events("a", "s", "t", [{ role: "user", text: "hi" }]), ApiError);
  assert.equal(unnumbered.seen.length, 1);
});

test("ingest is sent again after a 503, for its messages name their own ids", async () => {
  const answered = { results: [{ status: "applied" }], applied: 1, alreadyApplied: 0, failed: 0 };
  const fake = script(error(503, "storage_unavailable"), json(200, answered));
  const done = await client(fake).ingest([{ op: "session", agent: "a", session: "s" }]);
  assert.equal(done.applied, 1);
  assert.equal(fake.seen.length, 2);
});

test("the attempts run out and the last error is raised", async () => {
  const fake = script(...[1, 2, 3, 4].map(() => error(429, "throttled")));
  const caught = await client(fake).agents.get("a").catch((e) => e);
  assert.equal(caught.status, 429);
  assert.equal(fake.seen.length, 4);
});

test("retries: 0 sends a call once", async () => {
  const fake = script(error(429, "throttled"), json(200, AGENT));
  await assert.rejects(client(fake, 0).agents.get("a"), ApiError);
  assert.equal(fake.seen.length, 1);
});

test("a Retry-After longer than maxWaitMs is not waited for", async () => {
  const fake = script(error(429, "throttled", { "Retry-After": "3600" }));
  const started = performance.now();
  await assert.rejects(client(fake, { maxWaitMs: 5000 }).agents.get("a"), ApiError);
  assert.ok(performance.now() - started < 1000);
  assert.equal(fake.seen.length, 1);
});

test("a compare-and-swap PUT sent again after it applied is the write done", async () => {
  // Given a PUT with contentSha256 whose first try applied but whose answer was lost
  const content = "# notes\n";
  const mine = {
    agentId: "a",
    path: "/memories/notes.md",
    content,
    bytes: content.length,
    contentSha256: createHash("sha256").update(content).digest("hex"),
    version: 2,
    updatedAt: "2026-12-01T00:00:00Z",
    updatedBy: "api:u1",
  };
  const fake = script(lost(), json(409, { error: { code: "memory_conflict", message: "m", current: mine } }));
  // When the second try finds the memory holding what it wrote
  const written = await client(fake).agents.memories.put("a", "notes.md", content, { contentSha256: "0".repeat(64) });
  // Then that is the write, not a conflict
  assert.equal(written.version, 2);
  assert.equal(written.content, content);
  assert.equal(fake.seen.length, 2);
});

test("a compare-and-swap PUT that lost to another writer is a conflict", async () => {
  const theirs = { contentSha256: "f".repeat(64), path: "/memories/notes.md" };
  const fake = script(json(409, { error: { code: "memory_conflict", message: "m", current: theirs } }));
  const caught = await client(fake).agents.memories.put("a", "notes.md", "x", { contentSha256: "0".repeat(64) }).catch((e) => e);
  assert.equal(caught.code, "memory_conflict");
  assert.equal(caught.details.current.contentSha256, "f".repeat(64));
});

test("an error answer that is not JSON is still the client's error", async () => {
  const fake = script(new Response("<html>bad gateway</html>", { status: 502 }));
  const caught = await client(fake).agents.get("a").catch((e) => e);
  assert.ok(caught instanceof ApiError);
  assert.equal(caught.status, 502);
  assert.equal(caught.code, "http_error");
  assert.ok(caught.message.includes("bad gateway"));
});

test("a success that is not JSON, or not the call's shape, is an UnexpectedResponse", async () => {
  const page = script(new Response("<html>a proxy's page</html>", { status: 200 }));
  const caught = await client(page).agents.get("a").catch((e) => e);
  assert.ok(caught instanceof UnexpectedResponse && caught instanceof AgentMemoryError);
  assert.ok(caught.message.startsWith("GET /v1/agents/a answered what the client cannot read: not JSON"));
  const other = script(json(200, { something: "else" }));
  const shape = await client(other).agents.list().catch((e) => e);
  assert.ok(shape instanceof UnexpectedResponse);
  assert.ok(shape.message.includes("no agents in it"));
});

test("every request carries the token and plain agent segments", async () => {
  const fake = script(json(200, AGENT));
  await client(fake).agents.get("teams/web/releases");
  const [request] = fake.seen;
  assert.equal(request.headers.Authorization, "Bearer t");
  assert.equal(request.url, "http://sdk.test/v1/agents/teams/web/releases");
  assert.equal(request.method, "GET");
});

test("a raw request says whether it may go again", async () => {
  const told = script(error(503, "storage_unavailable"), json(200, {}));
  assert.deepEqual(await client(told).request("POST", "/v1/x", { body: {}, retry: true }), {});
  assert.equal(told.seen.length, 2);
  const untold = script(error(503, "storage_unavailable"), json(200, {}));
  await assert.rejects(client(untold).request("POST", "/v1/x", { body: {} }), ApiError);
  assert.equal(untold.seen.length, 1);
});

test("a call that takes longer than timeoutMs is a lost answer: a GET goes again, a POST not", async () => {
  const hang = (url, init) =>
    new Promise((_, reject) => init.signal.addEventListener("abort", () => reject(init.signal.reason)));
  const seen = [];
  let calls = 0;
  const fetch = (url, init) => {
    seen.push(init.method);
    return ++calls === 1 ? hang(url, init) : Promise.resolve(json(200, AGENT));
  };
  const timed = new Client({ baseUrl: "http://sdk.test", fetch, timeoutMs: 50, retries: FAST });
  assert.equal((await timed.agents.get("a")).id, "a");
  assert.deepEqual(seen, ["GET", "GET"]);

  calls = 0;
  seen.length = 0;
  const caught = await timed.turns.commit("a", "s", "t").catch((e) => e);
  assert.ok(caught instanceof ConnectionFailed);
  assert.ok(caught.message.endsWith("no answer in 50 ms"));
  assert.deepEqual(seen, ["POST"]);
});

test("an AbortSignal stops the call and its retries with the signal's reason", async () => {
  const fake = script(error(429, "throttled", { "Retry-After": "30" }), json(200, AGENT));
  const controller = new AbortController();
  const started = performance.now();
  setTimeout(() => controller.abort(new Error("the user left")), 50);
  const caught = await client(fake, { maxWaitMs: 60_000 }).agents.get("a", { signal: controller.signal }).catch((e) => e);
  assert.equal(caught.message, "the user left");
  assert.ok(performance.now() - started < 2000);
  assert.equal(fake.seen.length, 1);
});

for (const [path, reason] of [
  ["../../x.md", "'.' and '..' segments are not allowed"],
  ["notes/../z.md", "'.' and '..' segments are not allowed"],
  ["/memories/./a.md", "'.' and '..' segments are not allowed"],
  ["notes//a.md", "empty segments (//) are not allowed"],
  ["", "name a memory such as notes/release.md"],
]) {
  test(`a memory path ${JSON.stringify(path)} is refused before sending`, async () => {
    const fake = script();
    const c = client(fake);
    for (const call of [
      () => c.agents.memories.put("a", path, "x"),
      () => c.agents.memories.get("a", path),
      () => c.agents.memories.delete("a", path, { recursive: true }),
      () => c.agents.memories.update("a", path, () => "x"),
    ]) {
      const refused = await call().catch((e) => e);
      assert.ok(refused instanceof InvalidPath, String(refused));
      assert.equal(refused.code, "invalid_path");
      assert.ok(refused.message.startsWith(`invalid memory path ${JSON.stringify(path)}: ${reason}`), refused.message);
    }
    assert.equal(fake.seen.length, 0);
  });
}

for (const agentId of ["a/../b", "a/./b", "a//b", "", "../x"]) {
  test(`an agent id ${JSON.stringify(agentId)} is refused before sending`, async () => {
    const fake = script();
    await assert.rejects(client(fake).agents.get(agentId), InvalidPath);
    await assert.rejects(client(fake).agents.put(agentId, { harness: {} }), InvalidPath);
    assert.equal(fake.seen.length, 0);
  });
}

test("any request path with a dot segment is refused", async () => {
  const fake = script();
  await assert.rejects(client(fake).agents.records.get("a", ".."), InvalidPath);
  await assert.rejects(client(fake).sessions.get("a", "../../b"), InvalidPath);
  await assert.rejects(client(fake).agentManifests.get(".."), InvalidPath);
  await assert.rejects(client(fake).request("GET", "/v1/agents/a/../b"), InvalidPath);
  assert.equal(fake.seen.length, 0);
});

test("what a URL gives meaning to is percent-encoded; /memories/ paths name the same memory", async () => {
  const fake = script(new Response(null, { status: 204 }), new Response(null, { status: 204 }));
  const c = client(fake);
  assert.equal(await c.agents.memories.delete("a", "50% off? #1 é.md"), undefined);
  await c.agents.memories.delete("a", "/memories/conventions/release.md");
  assert.equal(fake.seen[0].url, "http://sdk.test/v1/agents/a/-/memories/50%25%20off%3F%20%231%20%C3%A9.md");
  assert.equal(fake.seen[1].url, "http://sdk.test/v1/agents/a/-/memories/conventions/release.md");
});

test("query values go as the Python SDK sends them", async () => {
  const fake = script(json(200, { records: [], next: null }));
  await client(fake).agents.records.list("a", { kind: ["fact", "preference"], labels: { team: "web" }, pinned: true, limit: 5 });
  const url = new URL(fake.seen[0].url);
  assert.equal(url.searchParams.get("kind"), "fact,preference");
  assert.equal(url.searchParams.get("labels"), '{"team":"web"}');
  assert.equal(url.searchParams.get("pinned"), "true");
  assert.equal(url.searchParams.get("limit"), "5");
});

test("the CommonJS build is the same client", async () => {
  const cjs = createRequire(import.meta.url)("../dist/cjs/index.js");
  const fake = script(error(404, "agent_not_found"));
  const caught = await new cjs.Client({ baseUrl: "sdk.test:8080", fetch: fake.fetch }).agents.get("a").catch((e) => e);
  assert.ok(caught instanceof cjs.ApiError && caught instanceof cjs.AgentMemoryError);
  assert.equal(caught.code, "agent_not_found");
  // A bare host and port is plain HTTP, as the CLI writes it
  assert.equal(fake.seen[0].url, "http://sdk.test:8080/v1/agents/a");
});
