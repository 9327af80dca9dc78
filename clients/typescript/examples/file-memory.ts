// The file-memory spec's TypeScript examples, as written there (/docs/run/memory): seed an
// agent that follows the named manifest in releases.json, then manage its memory. Run it from
// this folder with AGENT_MEMORY_URL and AGENT_MEMORY_TOKEN set.
import { readFile } from "node:fs/promises";
import { Client } from "@agent-memory/client";

const client = new Client({
  baseUrl: process.env.AGENT_MEMORY_URL ?? "http://127.0.0.1:8080",
  token: process.env.AGENT_MEMORY_TOKEN,
});

// -- the spec's example: seed it --------------------------------------------------------------
await client.agentManifests.save(JSON.parse(await readFile("releases.json", "utf8")));
await client.agents.put("teams/web/releases", { manifest: "releases" });

// Seed it: the agent finds this note in its first session.
await client.agents.memories.put(
  "teams/web/releases",
  "conventions/release.md",
  "---\ndescription: How the web team tags and ships a release\n---\n\nTag releases vX.Y.Z from main.\n",
);

// -- the spec's example: manage it ------------------------------------------------------------
const id = "teams/web/releases";
const { memories } = await client.agents.memories.list(id, { pathPrefix: "conventions" });

const memory = await client.agents.memories.get(id, "conventions/release.md");
await client.agents.memories.put(id, "conventions/release.md", `${memory.content}\nShip on Tuesdays.\n`, {
  contentSha256: memory.contentSha256,
});

const { versions } = await client.agents.memories.versions(id, { path: "conventions/release.md" });

// -- what it found, for whoever runs it ---------------------------------------------------------
console.log(JSON.stringify({ memories: memories.map((m) => m.path), versions: versions.map((v) => v.version) }));
