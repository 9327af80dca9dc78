// The Python SDK's contract cases (tests/e2e/test_sdk_contract.py and
// test_sdk_agent_manifests.py), run by the TypeScript client against an embedded server over
// real HTTP.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { AgentMemoryError, ApiError, Client, ConnectionFailed } from "../dist/esm/index.js";
import { freePort, startServer } from "./server.mjs";

const MANIFEST = {
  harness: {
    memory: {
      enabled: true,
      scope: { read: ["session", "agent"], write: ["session", "agent"] },
      tools: ["add_memory", "read_memory", "delete_memory"],
      pinned: { max_tokens: 500 },
    },
    history: { index: "messages_and_tools" },
  },
};

let server;
let client;

before(async () => {
  server = await startServer();
  client = new Client({ baseUrl: server.url, token: server.token });
});
after(() => server?.stop());

/** A fresh agent for the test, named after it. */
async function agentFor(t) {
  const id = `sdk/${t.name.replace(/[^A-Za-z0-9]+/g, "-").slice(0, 60).replace(/-+$/, "")}`;
  await client.agents.put(id, MANIFEST);
  return id;
}

test("agents put, get, page, fork and delete", async (t) => {
  const agent = await agentFor(t);
  // Given five agents beside the test's own
  for (let n = 0; n < 5; n++) await client.agents.put(`${agent}/${n}`, { harness: {} });
  const saved = await client.agents.put(agent, { harness: { history: { index: "messages" } } });
  assert.equal(saved.id, agent);
  assert.equal(saved.manifestVersion, 2);

  // Then get and paging see them, the iterator page after page
  assert.deepEqual((await client.agents.get(agent)).manifest.harness.history, {
    index: "messages",
    search: "session",
    fact_keys: null,
    entity_links: false,
  });
  const first = await client.agents.list({ limit: 2 });
  assert.equal(first.agents.length, 2);
  assert.ok(first.next);
  const every = [];
  for await (const a of client.agents.iter({ limit: 2 })) every.push(a.id);
  for (const id of [agent, ...[0, 1, 2, 3, 4].map((n) => `${agent}/${n}`)]) assert.ok(every.includes(id), id);
  assert.deepEqual(every, [...every].sort());
  assert.equal(new Set(every).size, every.length);
  const versions = await client.agents.manifestVersions(agent);
  assert.deepEqual(versions.versions.map((v) => v.version), [2, 1]);
  assert.equal((await client.agents.manifestVersion(agent, 1)).manifest.harness.memory.enabled, true);

  // When it is forked and the original deleted
  const copy = await client.agents.fork(agent, `${agent}-copy`);
  assert.equal(copy.forkedFrom, agent);
  assert.equal(copy.manifestVersion, 1);
  assert.equal(await client.agents.delete(agent), undefined);

  // Then the original is a 404 with its code and message, and the copy stays
  const missing = await client.agents.get(agent).catch((e) => e);
  assert.ok(missing instanceof ApiError && missing instanceof AgentMemoryError);
  assert.equal(missing.status, 404);
  assert.equal(missing.code, "agent_not_found");
  assert.ok(missing.message.includes(agent));
  assert.equal((await client.agents.get(`${agent}-copy`)).id, `${agent}-copy`);
});

test("memories with versions, paging and compare-and-swap", async (t) => {
  const agent = await agentFor(t);
  const memories = client.agents.memories;
  const made = await memories.put(agent, "notes/a.md", "---\ndescription: first\n---\none\n");
  assert.equal(made.version, 1);
  assert.equal(made.description, "first");
  for (let n = 0; n < 3; n++) await memories.put(agent, `notes/b${n}.md`, `b${n}\n`);

  const page = await memories.list(agent, { pathPrefix: "notes", limit: 2 });
  assert.equal(page.memories.length, 2);
  assert.ok(page.next);
  assert.equal("content" in page.memories[0], false);
  const paths = [];
  for await (const m of memories.iter(agent, { pathPrefix: "notes", limit: 2 })) paths.push(m.path);
  assert.deepEqual(paths, ["/memories/notes/a.md", "/memories/notes/b0.md", "/memories/notes/b1.md", "/memories/notes/b2.md"]);
  assert.ok((await memories.get(agent, "/memories/notes/a.md")).content.endsWith("one\n"));

  // Given another writer who changes the memory between the helper's read and its write
  const other = new Client({ baseUrl: server.url, token: server.token });
  let raced = false;
  const append = async (content) => {
    if (!raced) {
      raced = true;
      await other.agents.memories.put(agent, "notes/a.md", `${content ?? ""}theirs\n`);
    }
    return `${content ?? ""}mine\n`;
  };
  const conflicts = [];
  // When the helper appends with compare-and-swap
  const written = await memories.update(agent, "notes/a.md", append, { onConflict: (n) => conflicts.push(n) });
  // Then it lost once, read their write, and kept both lines
  assert.deepEqual(conflicts, [1]);
  assert.ok(written.content.endsWith("one\ntheirs\nmine\n"));
  assert.equal(written.version, 3);

  assert.equal((await memories.search(agent, "theirs mine"))[0].path, "/memories/notes/a.md");

  // A helper on a path with no memory yet creates it; a change of null leaves it alone
  const created = await memories.update(agent, "notes/new.md", (c) => (c === null ? "fresh\n" : c));
  assert.equal(created.version, 1);
  assert.equal(created.content, "fresh\n");
  assert.equal((await memories.update(agent, "notes/new.md", () => null)).version, 1);

  // A stale sha is a 409 memory_conflict carrying the memory as it is
  const stale = await memories.put(agent, "notes/a.md", "lost\n", { contentSha256: made.contentSha256 }).catch((e) => e);
  assert.ok(stale instanceof ApiError);
  assert.equal(stale.status, 409);
  assert.equal(stale.code, "memory_conflict");
  assert.equal(stale.details.current.contentSha256, written.contentSha256);

  const history = await memories.versions(agent, { path: "/memories/notes/a.md" });
  assert.deepEqual(history.versions.map((v) => v.version), [3, 2, 1]);
  let count = 0;
  for await (const v of memories.iterVersions(agent, { limit: 2 })) count += v.agentId === agent ? 1 : 0;
  assert.ok(count >= 6);
  assert.ok((await memories.version(agent, history.versions.at(-1).id)).content.endsWith("one\n"));

  await memories.delete(agent, "notes/b0.md");
  const gone = await memories.get(agent, "notes/b0.md").catch((e) => e);
  assert.equal(gone.status, 404);
  // A folder goes only when asked for recursively
  const folder = await memories.delete(agent, "notes/").catch((e) => e);
  assert.equal(folder.code, "recursive_required");
  await memories.delete(agent, "notes", { recursive: true });
  assert.deepEqual((await memories.list(agent, { pathPrefix: "notes" })).memories, []);
});

test("a turn writes records, commits, and a later turn recalls them", async (t) => {
  const agent = await agentFor(t);
  const session = await client.sessions.create(agent, { metadata: { user: "ana" } });
  assert.deepEqual(session.metadata, { user: "ana" });
  const turn = await client.turns.begin(agent, session.id, { startedBy: "person" });
  assert.equal(turn.sequence, 1);
  assert.equal(turn.status, "open");
  assert.equal(turn.startedBy, "person");

  const tools = client.turns.tools;
  const added = await tools.addMemory(agent, session.id, turn.id, {
    summary: "Releases ship on Tuesdays",
    scope: "agent",
    pinned: true,
  });
  const recordId = added.memories[0].id;
  const noted = await tools.call(
    agent,
    session.id,
    turn.id,
    "add_memory",
    { summary: "The staging host is stg-3", scope: "agent" },
    { caller: { role: "agent", execution: "exe-1" } },
  );
  assert.equal(noted.memories[0].summary, "The staging host is stg-3");
  const events = [
    { role: "user", text: "when do releases ship?", sequence: 1 },
    { role: "assistant", text: "On Tuesdays.", sequence: 2 },
  ];
  await client.turns.events(agent, session.id, turn.id, events);
  await client.turns.events(agent, session.id, turn.id, events); // sent again: kept once
  const detail = await client.turns.get(agent, session.id, turn.id);
  assert.equal(detail.memories.length, 2);
  assert.ok(detail.executions.length);
  assert.equal(detail.executions[1].caller.execution, "exe-1");
  assert.equal((await client.turns.commit(agent, session.id, turn.id)).status, "committed");

  // An ended turn refuses to change: 409 with its code
  const closed = await client.turns.commit(agent, session.id, turn.id).catch((e) => e);
  assert.equal(closed.status, 409);
  assert.equal(closed.code, "turn_closed");

  // A rolled-back turn leaves nothing
  const dropped = await client.turns.begin(agent, session.id);
  await tools.addMemory(agent, session.id, dropped.id, { summary: "never kept" });
  assert.equal((await client.turns.rollback(agent, session.id, dropped.id)).status, "rolled_back");

  // Records, their versions, search
  const record = await client.agents.records.get(agent, recordId);
  assert.equal(record.pinned, true);
  assert.equal(record.provenance.turnId, turn.id);
  const summaries = new Set();
  for await (const r of client.agents.records.iter(agent, { limit: 1 })) summaries.add(r.summary);
  assert.deepEqual(summaries, new Set(["Releases ship on Tuesdays", "The staging host is stg-3"]));
  assert.equal((await client.agents.records.search(agent, "staging host"))[0].summary, "The staging host is stg-3");
  assert.equal((await client.agents.records.list(agent, { query: "Tuesday releases", limit: 1 })).records[0].id, recordId);
  const hits = await client.search(agent, "staging host", { types: ["records"] });
  assert.ok(hits.hits.some((hit) => JSON.stringify(hit).includes("stg-3")));

  // A later session: instructions list the pinned record; recall finds the other by meaning
  const later = await client.sessions.create(agent);
  const next = await client.turns.begin(agent, later.id);
  const told = await client.turns.instructions(agent, later.id, next.id);
  assert.deepEqual(told.pinned.map((p) => p.id), [recordId]);
  const recalled = await client.turns.recall(agent, later.id, next.id, "which host is staging?");
  assert.ok(recalled.text.includes("stg-3"));
  const found = await tools.searchMemory(agent, later.id, next.id, { query: "staging" });
  assert.equal(found.records[0].summary, "The staging host is stg-3");

  assert.equal(typeof (await client.agents.indexStatus(agent)).pendingVectors, "number");
  assert.ok("usage" in (await client.agents.usage(agent, { turnId: turn.id })));

  // Delete: gone from search at once, still readable with its versions
  const deleted = await client.agents.records.delete(agent, recordId);
  assert.equal(deleted.status, "DELETED");
  const recordVersions = await client.agents.records.versions(agent, recordId);
  assert.deepEqual(recordVersions.versions.map((v) => v.operation), ["delete", "create"]);

  // History: the committed turn's events in order, paged; the rolled-back turn's never
  const kept = [];
  for await (const e of client.history.iter(agent, session.id, { limit: 1 })) kept.push(e.text);
  assert.deepEqual(kept, ["when do releases ship?", "On Tuesdays."]);
  assert.equal((await client.history.list(agent, session.id, { role: "assistant" })).events[0].turn, 1);
  const searched = await client.history.search(agent, "releases ship");
  assert.ok(searched.events.some((hit) => JSON.stringify(hit).includes("Tuesdays")));
  const exported = await client.history.export(agent, session.id);
  assert.equal(exported[0].sequence, 1);
  const statuses = [];
  for await (const tn of client.turns.iter(agent, session.id, { limit: 1 })) statuses.push(tn.status);
  assert.deepEqual(statuses, ["committed", "rolled_back"]);
  const sessions = [];
  for await (const s of client.sessions.iter(agent, { limit: 1 })) sessions.push(s.id);
  assert.deepEqual(sessions, [session.id, later.id]);
});

test("file memory through the memory tool and the session index", async (t) => {
  const agent = await agentFor(t);
  const session = await client.sessions.create(agent);
  const turn = await client.turns.begin(agent, session.id);
  const made = await client.turns.tools.memory(agent, session.id, turn.id, {
    command: "create",
    path: "/memories/prefs.md",
    file_text: "---\ndescription: what ana likes\n---\ndark mode\n",
  });
  assert.ok(made.result.startsWith("File created successfully"));
  await client.turns.commit(agent, session.id, turn.id);
  const later = await client.sessions.create(agent);
  assert.ok((await client.sessions.memoryIndex(agent, later.id)).includes("what ana likes"));
  assert.ok((await client.sessions.compact(agent, later.id)).includes("prefs.md"));
});

test("bad input is a 400 with its code and message, and changes nothing", async (t) => {
  const agent = await agentFor(t);
  const bad = await client.agents.put(agent, { harness: { memory: { enabled: true, bogus: 1 } } }).catch((e) => e);
  assert.equal(bad.status, 400);
  assert.equal(bad.code, "invalid_request");
  assert.ok(bad.message.includes("bogus"));
  assert.equal((await client.agents.get(agent)).manifestVersion, 1);
  const session = await client.sessions.create(agent);
  const turn = await client.turns.begin(agent, session.id);
  const refused = await client.turns.tools.addMemory(agent, session.id, turn.id, { summary: "" }).catch((e) => e);
  assert.equal(refused.status, 400);
  assert.equal(refused.code, "memory.invalid_argument");
  assert.deepEqual((await client.turns.get(agent, session.id, turn.id)).memories, []);
  const missing = await client.turns.begin(agent, "no-such-session").catch((e) => e);
  assert.equal(missing.status, 404);
  assert.equal(missing.code, "session_not_found");
});

test("a refused connection rejects with ConnectionFailed", async () => {
  const url = `http://127.0.0.1:${await freePort()}`;
  const refused = new Client({ baseUrl: url, token: "t", retries: { attempts: 2, backoffMs: 10 } });
  const caught = await refused.agents.list().catch((e) => e);
  assert.ok(caught instanceof ConnectionFailed && caught instanceof AgentMemoryError);
  assert.equal(caught.status, null);
  assert.equal(caught.code, "connection_failed");
  assert.equal(caught.url, url);
  assert.ok(caught.message.startsWith(`cannot reach ${url}: `));
});

test("a named manifest is saved and an agent follows it", async () => {
  const releases = {
    $schema: "https://example.com/schemas/agent-manifest/v8.json",
    name: "sdk-releases",
    harness: {
      instructions: ["Help the team ship releases."],
      memory: { access: "read_write", instructions: "Keep the team's release conventions." },
    },
  };
  const saved = await client.agentManifests.save(releases);
  assert.equal(saved.name, "sdk-releases");
  assert.equal(saved.version, 1);
  assert.ok(!("$schema" in saved.manifest) && !("name" in saved.manifest));
  const agent = await client.agents.put("teams/web/sdk-releases", { manifest: "sdk-releases" });
  assert.deepEqual(agent.manifest.manifest, { name: "sdk-releases", version: 1 });

  // When a new version is saved, the agent runs it
  const changed = { ...releases, harness: { ...releases.harness, instructions: ["Tuesdays."] } };
  assert.equal((await client.agentManifests.save(changed)).version, 2);
  const moved = await client.agents.get("teams/web/sdk-releases");
  assert.equal(moved.manifestVersion, 2);
  assert.deepEqual(moved.manifest.harness.instructions, ["Tuesdays."]);
  assert.equal((await client.agentManifests.get("sdk-releases")).version, 2);
  assert.deepEqual((await client.agentManifests.versions("sdk-releases")).versions.map((v) => v.version), [2, 1]);
  assert.equal((await client.agentManifests.version("sdk-releases", 1)).version, 1);
  const names = [];
  for await (const m of client.agentManifests.iter()) names.push(m.name);
  assert.ok(names.includes("sdk-releases"));
  const inUse = await client.agentManifests.delete("sdk-releases").catch((e) => e);
  assert.equal(inUse.code, "manifest_in_use");
  await client.agents.delete("teams/web/sdk-releases");
  await client.agentManifests.delete("sdk-releases");

  // A document without a name is refused before sending
  const unnamed = await client.agentManifests.save({ harness: {} }).catch((e) => e);
  assert.ok(unnamed instanceof AgentMemoryError);
  assert.equal(unnamed.code, "invalid_manifest_name");
});

test("ingest applies messages once, and the audit log lists the calls", async () => {
  const agent = "sdk/ingest";
  await client.agents.put(agent, MANIFEST);
  const messages = [
    { op: "session", agent, session: "s-1" },
    { op: "begin", agent, session: "s-1", turn: "t-1" },
    { op: "events", agent, session: "s-1", turn: "t-1", events: [{ role: "user", text: "hello", sequence: 1 }] },
    { op: "commit", agent, session: "s-1", turn: "t-1" },
  ];
  const first = await client.ingest(messages);
  assert.equal(first.failed, 0, JSON.stringify(first));
  // A redelivered session, turn and events change nothing (an ended turn's commit is refused)
  const again = await client.ingest(messages.slice(0, 3));
  assert.equal(again.applied, 0, JSON.stringify(again));
  const kept = [];
  for await (const e of client.history.iter(agent, "s-1")) kept.push(e.text);
  assert.deepEqual(kept, ["hello"]);

  const audit = await client.audit.list({ agentId: agent, limit: 5 });
  assert.ok(audit.entries.length >= 1);
  assert.ok(audit.entries.every((entry) => entry.agentId === agent));
});
