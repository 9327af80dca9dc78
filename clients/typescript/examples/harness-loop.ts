// A harness's turn in TypeScript: begin the turn, read the memory instructions and recall what
// fits the user's message, offer the record tools to the model and answer its calls through
// the service, keep the messages as the turn's events, and commit (or roll back on failure).
// The model is any API: `Model` is the one function a harness writes around its SDK.
import { type Client, type EventIn, type ToolDefinition, runTool, toolDefinitions } from "@agent-memory/client";

/** A model call: the system prompt, the conversation so far, the tools; its reply. */
export type Model = (request: {
  system: string;
  messages: { role: "user" | "assistant" | "tool"; content: string; toolCallId?: string }[];
  tools: ToolDefinition[];
}) => Promise<{ text: string; toolCalls: { id: string; name: string; input: unknown }[] }>;

export async function runTurn(client: Client, agentId: string, sessionId: string, userText: string, model: Model) {
  const turn = await client.turns.begin(agentId, sessionId);
  const where = { agentId, sessionId, turnId: turn.id };
  try {
    // What the agent must know before the model call: memory rules, pinned records, and the
    // records that best match this message (marked as memory data).
    const told = await client.turns.instructions(agentId, sessionId, turn.id);
    const recalled = await client.turns.recall(agentId, sessionId, turn.id, userText);
    const system = `${told.instructions}\n\n${recalled.text}`;
    const tools = toolDefinitions(told.tools ?? []);

    const messages: Parameters<Model>[0]["messages"] = [{ role: "user", content: userText }];
    const events: EventIn[] = [{ role: "user", text: userText, sequence: 1 }];
    for (let step = 0; step < 8; step++) {
      const reply = await model({ system, messages, tools });
      messages.push({ role: "assistant", content: reply.text });
      events.push({
        role: "assistant",
        text: reply.text,
        sequence: events.length + 1,
        tool_calls: reply.toolCalls.map((call) => ({ call_id: call.id, name: call.name })),
      });
      if (!reply.toolCalls.length) break;
      for (const call of reply.toolCalls) {
        // A refused call comes back as the model's to read (isError), not as an exception.
        const result = await runTool(client, where, call.name, call.input);
        messages.push({ role: "tool", content: result.content, toolCallId: call.id });
        events.push({
          role: result.isError ? "error" : "tool_result",
          text: result.content,
          call_id: call.id,
          tool_name: call.name,
          sequence: events.length + 1,
        });
      }
    }
    // Every event names its sequence, so the append is safe to send again.
    await client.turns.events(agentId, sessionId, turn.id, events);
    await client.turns.commit(agentId, sessionId, turn.id);
    return messages.at(-1)?.content ?? "";
  } catch (error) {
    await client.turns.rollback(agentId, sessionId, turn.id).catch(() => undefined);
    throw error;
  }
}
