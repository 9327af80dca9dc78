// Claude's memory tool kept in agent-memory, with the Anthropic TypeScript SDK:
//
//   import Anthropic from "@anthropic-ai/sdk";
//   import { betaMemoryTool } from "@anthropic-ai/sdk/helpers/beta/memory";
//
//   const anthropic = new Anthropic();
//   const runner = anthropic.beta.messages.toolRunner({
//     model: "claude-sonnet-4-5",
//     max_tokens: 1024,
//     tools: [betaMemoryTool(memory)],
//     messages: [{ role: "user", content: "Remember that releases ship on Tuesdays." }],
//   });
//
// (The SDK is not a dependency of this package: the handlers below are what it takes.)
import { Client, memoryTool } from "@agent-memory/client";

const client = new Client({
  baseUrl: process.env.AGENT_MEMORY_URL ?? "http://127.0.0.1:8080",
  token: process.env.AGENT_MEMORY_TOKEN,
});

// Each command runs in a committed turn of one session of the agent (its manifest must turn
// memory on); pass { sessionId, turnId } to join a turn the harness commits itself.
export const memory = memoryTool(client, "teams/web/releases");

console.log(await memory.view({ command: "view", path: "/memories" }));
