// What the type-check holds a caller to: each line marked @ts-expect-error must not compile
// (tsc fails on a mark with no error under it), so the generated types stay strict.
import { Client, type Memory, type ToolOutput } from "@agent-memory/client";

const client = new Client({ baseUrl: "http://127.0.0.1:8080" });
const id = "teams/web/releases";

export async function holds(): Promise<void> {
  const memory: Memory = await client.agents.memories.get(id, "conventions/release.md");
  const sha: string = memory.contentSha256;
  // @ts-expect-error: a memory's content is text
  const size: number = memory.content;

  // @ts-expect-error: put takes the content
  await client.agents.memories.put(id, "conventions/release.md");
  await client.agents.memories.put(id, "a.md", "x", { contentSha256: sha });

  const added: ToolOutput<"add_memory"> = await client.turns.tools.call(id, "s", "t", "add_memory", { summary: "x" });
  // @ts-expect-error: add_memory needs its summary
  await client.turns.tools.call(id, "s", "t", "add_memory", { kind: "fact" });
  // @ts-expect-error: the memory tool's commands are the six of Anthropic's
  await client.turns.tools.memory(id, "s", "t", { command: "format", path: "/memories" });

  const page = await client.agents.list({ limit: 10 });
  const next: string | null | undefined = page.next;
  // @ts-expect-error: a page of agents holds agents, not memories
  page.memories;
  console.log(size, added.memories.length, next);
}
