// The harness helpers and the examples against an embedded server: the file-memory spec's
// TypeScript example run as written, the harness loop of examples/harness-loop.ts with a
// scripted model, Claude's memory tool (the cases of tests/e2e/test_anthropic_memory_tool.py)
// and the record tools as a model API takes them.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { build } from "esbuild";
import { ApiError, Client, functionTools, memoryTool, recordTools } from "../dist/esm/index.js";
import { startServer } from "./server.mjs";

const pkg = resolve(dirname(fileURLToPath(import.meta.url)), "..");
// Inside the package, so an example's `@agent-memory/client` resolves (by the package's own
// name) to the very build the tests import: one module, one set of error classes.
mkdirSync(join(pkg, ".examples"), { recursive: true });
const scratch = mkdtempSync(join(pkg, ".examples", "run-"));
let server;
let client;

before(async () => {
  server = await startServer();
  client = new Client({ baseUrl: server.url, token: server.token });
});
after(async () => {
  await server?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

/** An example compiled to an ES module as Node runs it (the package left for Node to resolve). */
async function compiled(name) {
  const outfile = join(scratch, name.replace(/\.ts$/, ".mjs"));
  await build({
    entryPoints: [join(pkg, "examples", name)],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node18",
    external: ["@agent-memory/client"],
    logLevel: "warning",
  });
  return outfile;
}

test("the file-memory spec's example runs as written", async () => {
  // When the example runs from its folder (releases.json beside it)
  const script = await compiled("file-memory.ts");
  const { stdout } = await promisify(execFile)(process.execPath, [script], {
    cwd: join(pkg, "examples"),
    env: { ...process.env, AGENT_MEMORY_URL: server.url, AGENT_MEMORY_TOKEN: server.token },
  });
  // Then the agent follows the named manifest, and its note was seeded, then edited by CAS
  assert.deepEqual(JSON.parse(stdout), { memories: ["/memories/conventions/release.md"], versions: [2, 1] });
  const agent = await client.agents.get("teams/web/releases");
  assert.deepEqual(agent.manifest.manifest, { name: "releases", version: 1 });
  assert.equal(agent.manifest.harness.memory.access, "read_write");
  const note = await client.agents.memories.get("teams/web/releases", "/memories/conventions/release.md");
  assert.equal(note.description, "How the web team tags and ships a release");
  assert.ok(note.content.endsWith("Tag releases vX.Y.Z from main.\n\nShip on Tuesdays.\n"));
  assert.equal((await client.agentManifests.get("releases")).manifest.$schema, undefined);
});

test("the harness loop: recall, tools, events and commit, with a scripted model", async () => {
  const agent = "harness/loop";
  await client.agents.put(agent, {
    harness: {
      memory: { enabled: true, scope: { read: ["session", "agent"], write: ["session", "agent"] }, tools: ["add_memory", "search_memory"] },
      history: { index: "messages_and_tools" },
    },
  });
  const { runTurn } = await import(pathToFileURL(await compiled("harness-loop.ts")).href);
  const asked = [];
  // Given a model that notes a fact (and makes one call the service refuses), then answers
  const replies = [
    {
      text: "Let me note that.",
      toolCalls: [
        { id: "c1", name: "add_memory", input: { summary: "Releases ship on Tuesdays", scope: "agent" } },
        { id: "c2", name: "add_memory", input: { summary: "" } },
      ],
    },
    { text: "Noted: Tuesdays.", toolCalls: [] },
  ];
  const model = async (request) => {
    asked.push(request);
    return replies.shift();
  };
  const first = await client.sessions.create(agent);
  assert.equal(await runTurn(client, agent, first.id, "We ship releases on Tuesdays.", model), "Noted: Tuesdays.");

  // Then the tools were offered with the service's schemas, the refused call was the model's
  // to read, and the turn committed its record and its events
  const offered = asked[0].tools.map((t) => t.name);
  assert.ok(offered.includes("add_memory") && offered.includes("search_memory"), offered.join());
  assert.equal(asked[0].tools[0].input_schema.type, "object");
  const refused = asked[1].messages.find((m) => m.toolCallId === "c2");
  assert.ok(refused.content.length > 0);
  const [turn] = (await client.turns.list(agent, first.id)).turns;
  assert.equal(turn.status, "committed");
  const kept = (await client.history.list(agent, first.id)).events;
  assert.deepEqual(kept.map((e) => e.role), ["user", "assistant", "tool_result", "error", "assistant"]);
  assert.equal((await client.agents.records.list(agent)).records[0].summary, "Releases ship on Tuesdays");

  // And a later session's turn recalls it before the model call
  const later = await client.sessions.create(agent);
  const seen = [];
  await runTurn(client, agent, later.id, "When do releases ship?", async (request) => {
    seen.push(request.system);
    return { text: "Tuesdays.", toolCalls: [] };
  });
  assert.ok(seen[0].includes("Releases ship on Tuesdays"));
});

test("a failed model call rolls the harness turn back", async () => {
  const agent = "harness/rollback";
  await client.agents.put(agent, { harness: { memory: { enabled: true, tools: ["add_memory"] } } });
  const { runTurn } = await import(pathToFileURL(await compiled("harness-loop.ts")).href);
  const session = await client.sessions.create(agent);
  await assert.rejects(
    runTurn(client, agent, session.id, "hi", async () => {
      throw new Error("model unavailable");
    }),
    /model unavailable/,
  );
  assert.equal((await client.turns.list(agent, session.id)).turns[0].status, "rolled_back");
});

test("record tools come from the service as a model API takes them", async () => {
  const agent = "harness/tools";
  await client.agents.put(agent, { harness: { memory: { enabled: true, tools: ["add_memory", "read_memory"] } } });
  const tools = await recordTools(client, agent);
  const names = tools.map((t) => t.name);
  assert.ok(names.includes("add_memory") && names.includes("read_memory"), names.join());
  assert.ok(!names.includes("memory"));
  for (const tool of tools) {
    assert.ok(tool.description.length > 0);
    assert.equal(tool.input_schema.type, "object");
  }
  const withMemory = await recordTools(client, agent, { includeMemory: true });
  assert.ok(withMemory.some((t) => t.name === "memory"));
  const offered = (await client.agents.tools(agent)).tools;
  const functions = functionTools(offered);
  assert.equal(functions[0].type, "function");
  assert.deepEqual(functions[0].function.parameters, offered[0].inputSchema);
});

const MEMORY_AGENT = { harness: { memory: { enabled: true } } };

test("each memory tool command is a committed turn with the service's texts", async () => {
  const agent = "claude/desk";
  await client.agents.put(agent, MEMORY_AGENT);
  const tool = memoryTool(client, agent);
  assert.equal(
    await tool.create({ command: "create", path: "/memories/prefs.md", file_text: "tea\n" }),
    "File created successfully at: /memories/prefs.md",
  );
  assert.ok(
    (await tool.str_replace({ command: "str_replace", path: "/memories/prefs.md", old_str: "tea", new_str: "coffee" })).startsWith(
      "The memory file has been edited.",
    ),
  );
  assert.equal(
    await tool.insert({ command: "insert", path: "/memories/prefs.md", insert_line: 0, insert_text: "# Prefs" }),
    "The file /memories/prefs.md has been edited.",
  );
  const shown = await tool.view({ command: "view", path: "/memories/prefs.md" });
  assert.equal(shown.split("\n")[0], "Here's the content of /memories/prefs.md with line numbers:");
  assert.ok(shown.includes("# Prefs") && shown.includes("coffee"));
  assert.equal(
    await tool.rename({ command: "rename", old_path: "/memories/prefs.md", new_path: "/memories/me.md" }),
    "Successfully renamed /memories/prefs.md to /memories/me.md",
  );
  assert.equal((await client.agents.memories.get(agent, "me.md")).content, "# Prefs\ncoffee\n");
  // Every change is a version naming the session and the turn that made it
  const { versions } = await client.agents.memories.versions(agent);
  assert.deepEqual(versions.map((v) => v.operation), ["rename", "update", "update", "create"]);
  assert.equal(new Set(versions.map((v) => v.sessionId)).size, 1);
  const { turns } = await client.turns.list(agent, versions[0].sessionId);
  assert.deepEqual(versions.map((v) => v.turnId), [4, 2, 1, 0].map((i) => turns[i].id));
  assert.equal(await tool.delete({ command: "delete", path: "/memories/me.md" }), "Successfully deleted /memories/me.md");
  assert.deepEqual((await client.agents.memories.list(agent)).memories, []);
});

test("a refused memory command throws the service's text and changes nothing", async () => {
  const agent = "claude/refused";
  await client.agents.put(agent, MEMORY_AGENT);
  const tool = memoryTool(client, agent);
  await tool.create({ command: "create", path: "/memories/a.md", file_text: "one\n" });
  await assert.rejects(tool.create({ command: "create", path: "/memories/a.md", file_text: "two\n" }), {
    message: "Error: File /memories/a.md already exists",
  });
  await assert.rejects(tool.str_replace({ command: "str_replace", path: "/memories/b.md", old_str: "x", new_str: "y" }), {
    message: "Error: The path /memories/b.md does not exist. Please provide a valid path.",
  });
  assert.equal((await client.agents.memories.get(agent, "a.md")).content, "one\n");
  const { versions } = await client.agents.memories.versions(agent);
  assert.equal(versions.length, 1);
  const { turns } = await client.turns.list(agent, versions[0].sessionId);
  assert.deepEqual(turns.map((t) => t.status), ["committed", "rolled_back", "rolled_back"]);
});

test("in a harness's turn, memory tool writes apply when the harness commits", async () => {
  const agent = "claude/harness";
  await client.agents.put(agent, MEMORY_AGENT);
  const session = await client.sessions.create(agent);
  const turn = await client.turns.begin(agent, session.id);
  const tool = memoryTool(client, agent, { sessionId: session.id, turnId: turn.id });
  await tool.create({ command: "create", path: "/memories/plan.md", file_text: "ship\n" });
  // The turn reads its own write; nothing outside it does until the commit
  assert.ok((await tool.view({ command: "view", path: "/memories/plan.md" })).includes("ship"));
  const absent = await client.agents.memories.get(agent, "plan.md").catch((e) => e);
  assert.ok(absent instanceof ApiError && absent.status === 404);
  await client.turns.commit(agent, session.id, turn.id);
  assert.equal((await client.agents.memories.get(agent, "plan.md")).content, "ship\n");
  assert.equal((await client.agents.memories.versions(agent)).versions[0].turnId, turn.id);
  assert.throws(() => memoryTool(client, agent, { turnId: turn.id }), /turnId needs the sessionId/);
});

test("clearAllMemory deletes every memory, and a new conversation sees what the last noted", async () => {
  const agent = "claude/clear";
  await client.agents.put(agent, MEMORY_AGENT);
  const tool = memoryTool(client, agent);
  await tool.create({ command: "create", path: "/memories/prefs.md", file_text: "dark mode\n" });
  const later = memoryTool(client, agent);
  assert.ok((await later.view({ command: "view", path: "/memories/prefs.md" })).includes("dark mode"));
  for (const name of ["a", "b"]) await tool.create({ command: "create", path: `/memories/x/${name}.md`, file_text: name });
  assert.equal(await tool.clearAllMemory(), "Deleted 3 memories");
  assert.deepEqual((await client.agents.memories.list(agent)).memories, []);
});
