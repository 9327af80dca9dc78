"""A minimal agent loop over agent-memory, with the model faked: the whole lifecycle of a turn
through the SDK, and a later session that recalls what the first one learned.

    python examples/harness.py --url http://127.0.0.1:8080 --token "$(cat data/token)"

Each turn: begin it; build the system prompt from the turn's instructions (memory rules and the
pinned records) and the session's memory index (the file memories); recall the records that
match the user's message; call the model; run the tool calls it asks for within the turn; keep
the turn's messages as history events; commit (the turn's writes apply at once); wait for the
post-turn extraction to review what the user said. Exits 0 when the second session's answer
used what the first session learned, 1 otherwise."""

from __future__ import annotations

import argparse
import re
import sys
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from agent_memory.client import Client

MANIFEST = {
    "harness": {
        "memory": {
            "enabled": True,
            "instructions": "Use what you remember about the user; never ask twice.",
            # Reads both scopes; writes (and lets extraction write) the agent's scope, so the
            # next session sees what this one learned.
            "scope": {"read": ["session", "agent"], "write": ["agent"]},
            "extraction": {"every": "turn"},
            "pinned": {"max_tokens": 200},
            "tools": ["add_memory", "read_memory", "search_memory"],
        },
        "history": {"index": "messages_and_tools"},
    }
}


@dataclass
class Reply:
    """What the model answered: text, and the tools it wants called first."""

    text: str
    tool_calls: list[dict[str, Any]] = field(default_factory=list)


class FakeModel:
    """Stands in for an LLM, deterministically: asked to remember something, it calls
    add_memory (pinned); asked a question, it answers from the memory in its prompt."""

    def __init__(self) -> None:
        self.prompts: list[str] = []

    def respond(self, system: str, memory: str, user: str) -> Reply:
        self.prompts.append(f"{system}\n\n{memory}\n\nuser: {user}")
        rule = re.match(r"remember that (.+?)\.?$", user, re.I)
        if rule:
            summary = rule.group(1)[0].upper() + rule.group(1)[1:]
            call = {"name": "add_memory", "call_id": "call-1"}
            call["input"] = {"summary": summary, "scope": "agent", "pinned": True}
            return Reply("Noted; I will keep it in mind.", [call])
        if user.rstrip().endswith("?"):
            # The recalled block lists one record a line: `- [rec_...] (kind) summary`.
            known = [
                re.sub(r"^- \[\S+\] \(\w+\) ", "", line)
                for line in memory.splitlines()
                if "prefer" in line.lower()
            ]
            if known:
                return Reply(f"From what I remember: {known[0]}.")
            return Reply("I don't know yet.")
        return Reply("Got it.")


def run_turn(client: Client, model: FakeModel, agent: str, session: str, user: str) -> str:
    turn = client.turns.begin(agent, session, started_by="person")
    told = client.turns.instructions(agent, session, turn.id)
    index = client.sessions.memory_index(agent, session)
    system = f"{told['instructions']}\n\nMemory files:\n{index}"
    recalled = client.turns.recall(agent, session, turn.id, context=user)

    reply = model.respond(system, recalled["text"], user)
    events: list[dict[str, Any]] = [{"role": "user", "text": user}]
    calls = [{"name": c["name"], "call_id": c["call_id"]} for c in reply.tool_calls]
    if calls:
        events.append({"role": "assistant", "text": "", "tool_calls": calls})
    for call in reply.tool_calls:
        caller = {"role": "agent", "execution": call["call_id"]}
        output = client.turns.tools.call(
            agent, session, turn.id, call["name"], call["input"], caller=caller
        )
        text = f"stored {output['memories'][0]['id']}" if "memories" in output else str(output)
        result = {"role": "tool_result", "text": text, "tool_name": call["name"]}
        events.append({**result, "call_id": call["call_id"], "execution_id": call["call_id"]})
    events.append({"role": "assistant", "text": reply.text})
    # Numbered, the batch is safe to send again (the SDK retries it after a lost answer).
    numbered = [{**e, "sequence": n} for n, e in enumerate(events, 1)]
    client.turns.events(agent, session, turn.id, numbered)
    client.turns.commit(agent, session, turn.id)
    review = wait_for_extraction(client, agent, session, turn.id)
    print(f"[{session} #{turn.sequence}] user: {user}")
    print(f"[{session} #{turn.sequence}] agent: {reply.text}  (extraction: {review})")
    return reply.text


def wait_for_extraction(client: Client, agent: str, session: str, turn: str) -> str:
    """The post-turn review runs beside the server; a harness need not wait, this demo does so
    that the next session can recall what it added."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        extraction = client.turns.get(agent, session, turn).extraction
        if extraction is None:
            return "off"
        if extraction.status in ("done", "failed"):
            return f"{extraction.status}, added {extraction.added}"
        time.sleep(0.1)
    return "still running"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="the service (default AGENT_MEMORY_URL)")
    parser.add_argument("--token", help="its token (default AGENT_MEMORY_TOKEN)")
    parser.add_argument("--agent", default=f"examples/harness-{uuid.uuid4().hex[:8]}")
    args = parser.parse_args(argv)

    with Client(args.url, args.token) as client:
        client.agents.put(args.agent, MANIFEST)
        # An app seeds a file memory with the compare-and-swap helper; it shows in the index.
        client.agents.memories.update(
            args.agent,
            "conventions/style.md",
            lambda now: now or "---\ndescription: how replies are written\n---\nBe brief.\n",
        )
        model = FakeModel()

        first = client.sessions.create(args.agent).id
        run_turn(client, model, args.agent, first, "Remember that releases ship on Tuesdays.")
        run_turn(client, model, args.agent, first, "I prefer dark mode in every editor.")

        later = client.sessions.create(args.agent).id
        answer = run_turn(client, model, args.agent, later, "Which theme do I prefer?")

        prompt = model.prompts[-1]
        pinned = "Releases ship on Tuesdays" in prompt
        indexed = "how replies are written" in prompt
        recalled = "dark mode" in answer
        searched = client.search(args.agent, "dark mode editor")
        print(f"pinned rule in the later prompt: {pinned}; memory index: {indexed}")
        print(f"recalled in the later session: {recalled}; search finds: {searched[0].summary!r}")
        kept = [e.text for e in client.history.iter(args.agent, first)]
        print(f"first session's history: {len(kept)} events")
    return 0 if pinned and indexed and recalled else 1


if __name__ == "__main__":
    sys.exit(main())
