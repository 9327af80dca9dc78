"""Preview turns never change live file memories: their memory tool writes are kept as preview
changes, seen by preview turns only, on both stores."""

import pytest

pytestmark = pytest.mark.integration

A = "/v1/agents/teams/web/releases"
M = A + "/-/memories"


@pytest.fixture
def agent(api):
    api.ok("PUT", A, {"harness": {"memory": {"access": "read_write"}}}, expect=201)
    api.ok("PUT", f"{M}/a.md", {"content": "live a\n"}, expect=201)
    api.ok("PUT", f"{M}/b.md", {"content": "live b\n"}, expect=201)
    return api


class Turn:
    def __init__(self, api, preview=False):
        session = api.ok("POST", f"{A}/-/sessions", expect=201)["id"]
        self.api = api
        turn = api.ok("POST", f"{A}/-/sessions/{session}/turns", {"preview": preview}, expect=201)
        self.path = f"{A}/-/sessions/{session}/turns/{turn['id']}"

    def ok(self, **command):
        status, body = self.api.call(
            "POST", f"{self.path}/tools/memory", {**command, "caller": {"role": "agent"}}
        )
        assert status == 200, (status, body)
        return body["output"]["result"]

    def commit(self):
        self.api.ok("POST", f"{self.path}/commit")

    def listing(self):
        return [
            line.split("\t")[1]
            for line in self.ok(command="view", path="/memories").split("\n")[1:]
        ]


def preview_changes(api):
    t = Turn(api, preview=True)
    t.ok(command="str_replace", path="/memories/a.md", old_str="live", new_str="preview")
    t.ok(command="create", path="/memories/p.md", file_text="made in preview\n")
    t.ok(command="rename", old_path="/memories/b.md", new_path="/memories/c.md")
    t.commit()


def test_the_management_api_never_sees_a_preview_change(agent):
    preview_changes(agent)
    memories = agent.ok("GET", M)["memories"]
    assert [(m["path"], m["version"]) for m in memories] == [
        ("/memories/a.md", 1),
        ("/memories/b.md", 1),
    ]
    assert agent.ok("GET", f"{M}/a.md")["content"] == "live a\n"
    assert agent.call("GET", f"{M}/p.md")[0] == 404
    versions = agent.ok("GET", A + "/-/memory-versions")["versions"]
    assert sorted(v["path"] for v in versions) == ["/memories/a.md", "/memories/b.md"]


def test_a_live_turn_never_sees_a_preview_change(agent):
    preview_changes(agent)
    live = Turn(agent)
    assert live.listing() == ["/memories", "/memories/a.md", "/memories/b.md"]
    assert "live a" in live.ok(command="view", path="/memories/a.md")
    # A live write works from the live content, and commits as usual.
    live.ok(command="str_replace", path="/memories/a.md", old_str="live a", new_str="live a2")
    live.commit()
    assert agent.ok("GET", f"{M}/a.md")["content"] == "live a2\n"


def test_later_preview_turns_see_the_preview_changes(agent):
    preview_changes(agent)
    later = Turn(agent, preview=True)
    assert later.listing() == [
        "/memories",
        "/memories/a.md",
        "/memories/c.md",
        "/memories/p.md",
    ]
    assert "preview a" in later.ok(command="view", path="/memories/a.md")
    assert "live b" in later.ok(command="view", path="/memories/c.md")
    later.ok(command="delete", path="/memories/p.md")
    later.commit()
    assert Turn(agent, preview=True).listing() == ["/memories", "/memories/a.md", "/memories/c.md"]
    assert agent.ok("GET", f"{M}/a.md")["content"] == "live a\n"


def test_deleting_the_agent_deletes_its_preview_changes(agent):
    preview_changes(agent)
    agent.ok("DELETE", A, expect=204)
    agent.ok("PUT", A, {"harness": {"memory": {}}}, expect=201)
    assert Turn(agent, preview=True).listing() == ["/memories"]
