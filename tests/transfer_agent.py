"""An agent with a bit of everything a bundle carries, made through the API (any shape), and the
reads two services must answer alike once one has imported the other's export."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_memory.bundle import export_bundle, import_bundle

A = "/v1/agents/teams/web/releases"
AGENT_ID = "teams/web/releases"
CALLER = {"caller": {"role": "agent"}}
MANIFEST = {
    "harness": {
        "memory": {
            "enabled": True,
            "scope": {"read": ["session", "agent"], "write": ["session", "agent"]},
            "tools": ["add_memory", "read_memory", "delete_memory"],
        },
        "history": {"index": "messages_and_tools"},
    }
}


class Turn:
    def __init__(self, api: Any, session: str) -> None:
        self.api = api
        self.id = api.ok("POST", f"{A}/-/sessions/{session}/turns", {}, expect=201)["id"]
        self.path = f"{A}/-/sessions/{session}/turns/{self.id}"

    def tool(self, name: str, **args: Any) -> Any:
        return self.api.ok("POST", f"{self.path}/tools/{name}", {**args, **CALLER})["output"]

    def say(self, *texts: str) -> None:
        roles = ["user", "assistant"]
        events = [{"role": roles[n % 2], "text": t} for n, t in enumerate(texts)]
        self.api.ok("POST", f"{self.path}/events", {"events": events})

    def end(self, how: str = "commit") -> None:
        self.api.ok("POST", f"{self.path}/{how}")


def populate(api: Any) -> None:
    """Two manifest versions; records created, superseded and deleted; memories created,
    changed, renamed and deleted; two sessions with committed, rolled-back and open turns."""
    api.ok("PUT", A, MANIFEST, expect=201)
    api.ok("PUT", A, {"harness": {**MANIFEST["harness"], "instructions": "Be brief."}})
    s1 = api.ok("POST", f"{A}/-/sessions", {"id": "s-1", "metadata": {"user": "u-7"}}, expect=201)
    t = Turn(api, s1["id"])
    t.say("We deploy the web app on Fridays.", "Noted: deploys happen on Fridays.")
    old = t.tool("add_memory", summary="Deploys happen on Fridays", scope="agent")["memories"][0]
    t.tool("add_memory", summary="The staging host is st-4", scope="session")
    t.tool("memory", command="create", path="/memories/release.md", file_text="Tag vX.Y.Z.\n")
    t.end()
    t = Turn(api, s1["id"])
    t.say("Actually the deploy moved to Thursdays.", "Updated: deploys happen on Thursdays.")
    t.tool("add_memory", summary="Deploys happen on Thursdays", scope="agent", replaces=old["id"])
    t.tool(
        "memory",
        command="str_replace",
        path="/memories/release.md",
        old_str="Tag vX.Y.Z.",
        new_str="Tag vX.Y.Z from main.",
    )
    t.tool("memory", command="rename", old_path="/memories/release.md",
           new_path="/memories/ship/release.md")  # fmt: skip
    t.end()
    t = Turn(api, s1["id"])
    t.say("Forget everything about pelicans.")
    t.tool("add_memory", summary="Pelicans are rolled back", scope="agent")
    t.end("rollback")
    api.ok("PUT", f"{A}/-/memories/notes/gone.md", {"content": "short-lived\n"}, expect=201)
    api.ok("DELETE", f"{A}/-/memories/notes/gone.md", expect=204)
    api.ok("PUT", f"{A}/-/memories/notes/kept.md", {"content": "---\ndescription: kept\n---\nk\n"},
           expect=201)  # fmt: skip
    doomed = Turn(api, s1["id"])
    gone = doomed.tool("add_memory", summary="A fact deleted later", scope="agent")["memories"][0]
    doomed.end()
    api.ok("DELETE", f"{A}/-/records/{gone['id']}")
    s2 = api.ok("POST", f"{A}/-/sessions", {"id": "s-2"}, expect=201)
    t = Turn(api, s2["id"])
    t.say("The kiwi release train leaves at noon.", "Kiwi train: noon.")
    t.end()
    Turn(api, s2["id"]).say("An open turn's message.")


def reads(api: Any, searches: bool = True) -> dict[str, Any]:
    """What a caller reads of the agent, each read as the API answers it; without `searches`,
    no ranked read (the integration suite's DynamoDB service has no search index)."""
    out: dict[str, Any] = {"agent": api.ok("GET", A)}
    out["manifests"] = api.ok("GET", f"{A}/-/manifest-versions")["versions"]
    records = api.ok("GET", f"{A}/-/records", status="all", preview="any")["records"]
    out["records"] = records
    out["record versions"] = {
        r["id"]: api.ok("GET", f"{A}/-/records/{r['id']}/versions")["versions"] for r in records
    }
    listing = api.ok("GET", f"{A}/-/memories")["memories"]
    out["memories"] = listing
    out["memory reads"] = [
        api.ok("GET", f"{A}/-/memories/{m['path'].removeprefix('/memories/')}") for m in listing
    ]
    out["memory versions"] = api.ok("GET", f"{A}/-/memory-versions", limit=200)["versions"]
    sessions = api.ok("GET", f"{A}/-/sessions")["sessions"]
    out["sessions"] = sessions
    for s in sessions:
        base = f"{A}/-/sessions/{s['id']}"
        turns = api.ok("GET", f"{base}/turns")["turns"]
        out[f"turns {s['id']}"] = turns
        details = [api.ok("GET", f"{base}/turns/{t['id']}") for t in turns]
        # Usage is what each service spent (an import embeds anew, or not): not carried.
        # Usage is what each service spent (an import embeds anew, or not), and how many vectors
        # wait is the service's own state: neither is carried.
        out[f"turn details {s['id']}"] = [
            {**d, "usage": None, "pendingVectors": None} for d in details
        ]
        out[f"history {s['id']}"] = api.ok("GET", f"{base}/history", limit=200)
    if not searches:
        return out
    found = api.ok("GET", f"{A}/-/history", query="kiwi release train")["events"]
    out["history search"] = [(h["id"], h["session"], h["text"]) for h in found[:1]]
    ranked = api.ok("GET", f"{A}/-/records", query="Thursdays deploys", scope="agent")["records"]
    out["record search"] = [r["id"] for r in ranked[:1]]
    return out


def through(api: Any) -> tuple[Any, Any]:
    """The export page reader and import batch sender of a bundle, over `api`."""

    def fetch(agent_id: str, cursor: str | None) -> dict[str, Any]:
        path = "/v1/agents/" + agent_id + "/-/export"
        query = {"cursor": cursor} if cursor else {}
        return api.ok("GET", path, **query, limit=7)  # small pages: every cursor is walked

    def send(agent_id: str, items: list[dict[str, Any]]) -> dict[str, Any]:
        return api.ok("POST", "/v1/agents/" + agent_id + "/-/import", {"items": items})

    return fetch, send


def move(source: Any, target: Any, bundle: Path) -> Any:
    fetch, _ = through(source)
    export_bundle(bundle, [AGENT_ID], fetch)
    return import_bundle(bundle, through(target)[1])
