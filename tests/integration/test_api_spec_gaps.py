"""What the spec states and issue #13's audit found missing: instructions about history, recall
deduplicated across a conversation's turns, the agent's own retrievals never kept, search_memory
by ids, the runtime marker, refusals of a turn on an older manifest, renames within a turn, and
fork copying agent-scope records. On both stores unless a test says why not."""

import pytest

pytestmark = pytest.mark.integration

A = "/v1/agents/teams/web/releases"
AGENT = {"role": "agent"}
MEMORY = {
    "enabled": True,
    "scope": {"read": ["session", "agent"], "write": ["session", "agent"]},
    "tools": ["add_memory", "read_memory", "delete_memory"],
}


def put(api, memory=None, history=None, expect=201):
    harness = {"memory": {**MEMORY, **(memory or {})}}
    if history:
        harness["history"] = {"index": history}
    return api.ok("PUT", A, {"harness": harness}, expect=expect)


def session(api, agent=A):
    return api.ok("POST", f"{agent}/-/sessions", expect=201)["id"]


class Turn:
    def __init__(self, api, session_id, agent=A):
        self.api = api
        self.id = api.ok("POST", f"{agent}/-/sessions/{session_id}/turns", expect=201)["id"]
        self.path = f"{agent}/-/sessions/{session_id}/turns/{self.id}"

    def call(self, tool, caller=AGENT, **args):
        return self.api.call("POST", f"{self.path}/tools/{tool}", {**args, "caller": caller})

    def tool(self, tool, caller=AGENT, **args):
        status, body = self.call(tool, caller, **args)
        assert status == 200, (status, body)
        return body["output"]

    def recall(self, context, caller=None):
        body = {"context": context, **({"caller": caller} if caller else {})}
        return self.api.ok("POST", f"{self.path}/recall", body)

    def recalls(self):
        executions = self.api.ok("GET", self.path)["executions"]
        return [e for e in executions if e["input"].get("recall")]

    def commit(self):
        return self.api.ok("POST", f"{self.path}/commit")


def seed(api, *summaries, scope="agent"):
    turn = Turn(api, session(api))
    made = [turn.tool("add_memory", summary=s, scope=scope)["memories"][0]["id"] for s in summaries]
    turn.commit()
    return made


# -- 1. the turn's instructions tell the agent to search its history -------------------------


def test_instructions_tell_the_agent_to_search_history_when_it_is_kept(api):
    put(api, history="messages")
    kept = api.ok("GET", f"{Turn(api, session(api)).path}/instructions")["instructions"]
    assert "search_history" in kept
    assert "before guessing" in kept and "asking again" in kept

    put(api, history=None, expect=200)
    without = api.ok("GET", f"{Turn(api, session(api)).path}/instructions")["instructions"]
    assert "search_history" not in without


# -- 2. a recall is deduplicated across the turns of one conversation ------------------------


def test_a_recall_of_the_same_versions_on_the_next_turn_is_not_recorded_again(api):
    put(api)
    seed(api, "Releases ship on Tuesdays")
    s = session(api)
    context = "user: when do releases ship?"
    helper = {"role": "helper", "invocation": "inv-1"}
    first = Turn(api, s)
    first.recall(context)
    first.recall(context, helper)
    first.commit()

    second = Turn(api, s)
    got = second.recall(context)
    second.recall(context, helper)
    # Returned as before, but already put before these conversations: not recorded again.
    assert got["records"][0]["summary"] == "Releases ship on Tuesdays"
    assert second.recalls() == []
    # Another helper invocation is another conversation, and so is another session.
    second.recall(context, {"role": "helper", "invocation": "inv-2"})
    assert [r["caller"]["invocation"] for r in second.recalls()] == ["inv-2"]
    other = Turn(api, session(api))
    other.recall(context)
    assert len(other.recalls()) == 1


def test_a_recall_further_back_than_the_lookback_is_recorded_again(api, monkeypatch):
    monkeypatch.setattr("agent_memory.domain.tools.recall.RECALL_LOOKBACK_TURNS", 1)
    put(api)
    seed(api, "Releases ship on Tuesdays")
    s = session(api)
    context = "user: when do releases ship?"
    first = Turn(api, s)
    first.recall(context)
    first.commit()
    Turn(api, s).commit()  # a turn without a recall
    third = Turn(api, s)
    third.recall(context)
    assert len(third.recalls()) == 1


def test_a_new_version_of_a_recalled_record_is_recorded_on_the_next_turn(api):
    put(api)
    (ship,) = seed(api, "Releases ship on Tuesdays")
    s = session(api)
    first = Turn(api, s)
    first.recall("user: when do releases ship?")
    first.commit()
    changer = Turn(api, session(api))
    changer.tool("add_memory", summary="Releases ship on Wednesdays", scope="agent", replaces=ship)
    changer.commit()

    second = Turn(api, s)
    second.recall("user: when do releases ship?")
    assert len(second.recalls()) == 1


def test_a_rolled_back_turns_recall_did_not_reach_the_conversation(api):
    # A failed attempt is retried from the committed history: what it recalled is not there.
    put(api)
    seed(api, "Releases ship on Tuesdays")
    s = session(api)
    failed = Turn(api, s)
    failed.recall("user: when do releases ship?")
    api.ok("POST", f"{failed.path}/rollback")
    retry = Turn(api, s)
    retry.recall("user: when do releases ship?")
    assert len(retry.recalls()) == 1


# -- 3. the agent's own retrievals are never kept in history ---------------------------------


def test_read_memory_results_and_memory_views_are_never_kept(api):
    put(api, history="messages_and_tools")
    (ship,) = seed(api, "Releases ship on Tuesdays")
    s = session(api)
    turn = Turn(api, s)
    turn.tool("read_memory", id=ship)
    view_caller = {"role": "agent", "execution": "exe-view-1"}
    turn.tool("memory", view_caller, command="view", path="/memories")
    create_caller = {"role": "agent", "execution": "exe-create-1"}
    turn.tool(
        "memory", create_caller, command="create", path="/memories/a.md", file_text="release\n"
    )
    out = api.ok(
        "POST",
        f"{turn.path}/events",
        {
            "events": [
                {"role": "user", "text": "when do we ship?"},
                {
                    "role": "assistant",
                    "text": "",
                    "tool_calls": [{"name": "read_memory", "call_id": "c1"}],
                },
                {
                    "role": "tool_result",
                    "text": "Releases ship on Tuesdays",
                    "tool_name": "read_memory",
                    "call_id": "c1",
                },
                {
                    "role": "tool_result",
                    "text": "Here're the files and directories up to 2 levels deep",
                    "tool_name": "memory",
                    "call_id": "c2",
                    "execution_id": "exe-view-1",
                },
                {
                    "role": "tool_result",
                    "text": "the view of a harness that names the command",
                    "tool_name": "memory",
                    "metadata": {"command": "view"},
                },
                {
                    "role": "tool_result",
                    "text": "File created successfully at: /memories/a.md",
                    "tool_name": "memory",
                    "call_id": "c3",
                    "execution_id": "exe-create-1",
                },
            ]
        },
    )
    assert (out["kept"], out["dropped"]) == (2, 4)
    turn.commit()
    kept = api.ok("GET", f"{A}/-/sessions/{s}/history")["events"]
    assert [e["text"] for e in kept] == [
        "when do we ship?",
        "File created successfully at: /memories/a.md",
    ]


# -- 4. search_memory with ids reads records by id ---------------------------------------------


def test_search_memory_by_ids_reads_records_whatever_their_status(api):
    put(api)
    old, gone, live = seed(api, "Ship on Mondays", "Staging is in us-east-1", "Ana owns billing")
    change = Turn(api, session(api))
    new = change.tool("add_memory", summary="Ship on Tuesdays", scope="agent", replaces=old)
    change.tool("delete_memory", id=gone)
    change.commit()

    reader = Turn(api, session(api))
    out = reader.tool("search_memory", ids=[old, gone, live, "rec_missing"])
    statuses = {r["id"]: (r["status"], r.get("replacedBy")) for r in out["records"]}
    assert statuses == {
        old: ("SUPERSEDED", new["memories"][0]["id"]),
        gone: ("DELETED", None),
        live: ("ACTIVE", None),
    }
    # Newest first, as read_memory shows each; an id it cannot read is named as such.
    assert [r["id"] for r in out["records"]] == [live, gone, old]
    assert out["notFound"] == ["rec_missing"]
    assert out["records"][-1] == reader.tool("read_memory", id=old)["sources"][0]
    # A helper reads them too; the filters still apply.
    helper = reader.tool("search_memory", {"role": "helper"}, ids=[old], kind="guidance")
    assert helper["records"] == [] and helper["notFound"] == []


def test_search_memory_by_ids_never_reads_another_sessions_records(api):
    put(api)
    (private,) = seed(api, "The account is c-42", scope="session")
    out = Turn(api, session(api)).tool("search_memory", ids=[private])
    assert out == {"records": [], "next": None, "notFound": [private]}


# -- 5. the management listing's query ranks like search_memory -------------------------------


def test_the_listings_query_finds_by_meaning_like_the_tool(api, store):
    if type(store).__name__ != "SqliteStore":
        pytest.skip("the DynamoDB shape ranks by meaning through OpenSearch")
    put(api)
    violin, _ = seed(api, "Ana plays the violin", "The staging cluster runs in eu-west-1")
    tool = Turn(api, session(api)).tool("search_memory", query="musical instrument", limit=1)
    assert [r["id"] for r in tool["records"]] == [violin]
    listed = api.ok("GET", f"{A}/-/records", query="musical instrument", limit=1)["records"]
    assert [r["id"] for r in listed] == [violin]
    # Its embedding is usage of purpose embed on the agent.
    usage = api.ok("GET", f"{A}/-/usage")["usage"]
    assert usage[0]["purpose"] == "embed" and usage[0]["turnId"] is None


def test_the_listings_query_keeps_its_filters(api):
    put(api)
    ship, _ = seed(api, "Releases ship on Tuesdays", "Releases are tagged vX.Y.Z")
    api.ok("DELETE", f"{A}/-/records/{ship}")
    active = api.ok("GET", f"{A}/-/records", query="releases ship")["records"]
    assert ship not in [r["id"] for r in active]
    deleted = api.ok("GET", f"{A}/-/records", query="releases ship", status="DELETED")["records"]
    assert [r["id"] for r in deleted] == [ship]


# -- 6. memory tool executions carry the runtime marker ---------------------------------------


def test_memory_tool_executions_are_marked_runtime(api):
    put(api)
    turn = Turn(api, session(api))
    turn.tool("memory", command="create", path="/memories/a.md", file_text="x\n")
    status, _ = turn.call("memory", command="view", path="/memories/missing.md")
    assert status == 404
    turn.tool("search_memory", query="x")
    executions = api.ok("GET", turn.path)["executions"]
    kinds = {(e["tool"], e.get("error") is None): e.get("kind") for e in executions}
    assert kinds[("memory", True)] == "runtime"
    assert kinds[("memory", False)] == "runtime"
    assert kinds[("search_memory", True)] is None


# -- 7. a turn on an older manifest says so when it refuses ----------------------------------


def test_a_refusal_names_the_manifest_version_the_turn_runs(api):
    put(api, {"tools": []})
    s = session(api)
    old = Turn(api, s)
    put(api, {"tools": ["add_memory"]}, expect=200)
    status, body = old.call("add_memory", summary="x")
    assert (status, body["error"]["code"]) == (403, "tool_not_offered")
    message = body["error"]["message"]
    assert "manifest version 1" in message and "version 2" in message
    assert "new turn" in message
    # The next turn runs version 2, which offers it.
    Turn(api, s).tool("add_memory", summary="x")


def test_a_refusal_on_the_current_version_names_no_newer_one(api):
    put(api, {"tools": []})
    status, body = Turn(api, session(api)).call("add_memory", summary="x")
    assert status == 403
    assert "manifest version 1" in body["error"]["message"]
    assert "new turn" not in body["error"]["message"]


# -- 12. a file created and renamed in one turn ------------------------------------------------


def test_a_file_created_and_renamed_in_one_turn_starts_its_history_with_its_creation(api):
    put(api)
    turn = Turn(api, session(api))
    turn.tool("memory", command="create", path="/memories/a.md", file_text="one\n")
    turn.tool("memory", command="str_replace", path="/memories/a.md", old_str="one", new_str="two")
    turn.tool("memory", command="rename", old_path="/memories/a.md", new_path="/memories/b.md")
    turn.commit()
    versions = api.ok("GET", f"{A}/-/memory-versions", path="/memories/b.md")["versions"]
    history = [(v["operation"], v["version"], v["path"]) for v in reversed(versions)]
    assert history == [
        ("create", 1, "/memories/b.md"),
        ("update", 2, "/memories/b.md"),
    ]
    head = api.ok("GET", f"{A}/-/memories/b.md")
    assert (head["version"], head["content"]) == (2, "two\n")
    first = api.ok("GET", f"{A}/-/memory-versions/{versions[-1]['id']}")
    assert first["content"] == "one\n"
    assert api.ok("GET", f"{A}/-/memory-versions", path="/memories/a.md")["versions"] == []


def test_a_rename_of_a_file_made_before_the_turn_stays_a_rename(api):
    put(api)
    api.ok("PUT", f"{A}/-/memories/a.md", {"content": "one\n"}, expect=201)
    turn = Turn(api, session(api))
    turn.tool("memory", command="rename", old_path="/memories/a.md", new_path="/memories/b.md")
    turn.commit()
    versions = api.ok("GET", f"{A}/-/memory-versions", path="/memories/b.md")["versions"]
    assert [(v["operation"], v["version"], v["fromPath"]) for v in versions] == [
        ("rename", 2, "/memories/a.md")
    ]


# -- 13. fork copies the agent's active agent-scope records ------------------------------------


def test_fork_copies_active_agent_scope_records_at_version_one(api):
    put(api)
    old, keep, gone = seed(api, "Ship on Mondays", "Ana owns billing", "Staging is in us-east-1")
    (private,) = seed(api, "The account is c-42", scope="session")
    change = Turn(api, session(api))
    new = change.tool("add_memory", summary="Ship on Tuesdays", scope="agent", replaces=old)
    change.tool("delete_memory", id=gone)
    change.commit()
    new_id = new["memories"][0]["id"]

    copy = "/v1/agents/teams/web/releases-copy"
    api.ok("POST", f"{A}/-/fork", {"id": "teams/web/releases-copy"}, expect=201)
    copied = api.ok("GET", f"{copy}/-/records", status="all")["records"]
    assert sorted(r["summary"] for r in copied) == ["Ana owns billing", "Ship on Tuesdays"]
    for record in copied:
        assert record["version"] == 1 and record["status"] == "ACTIVE"
        assert record["agentId"] == "teams/web/releases-copy"
        assert record["provenance"]["actor"] == "fork:teams/web/releases"
        assert record.get("replaces") is None
        versions = api.ok("GET", f"{copy}/-/records/{record['id']}/versions")["versions"]
        assert [v["operation"] for v in versions] == ["create"]
    assert {r["id"] for r in copied} == {keep, new_id}
    assert private not in {r["id"] for r in copied}
    # The copy's sessions recall and search what it knows; the source keeps its own.
    found = Turn(api, session(api, copy), copy).tool("search_memory", query="billing owner")
    assert [r["id"] for r in found["records"]] == [keep]
    assert api.ok("GET", f"{A}/-/records/{keep}")["agentId"] == "teams/web/releases"


# -- 15. events after their turn's commit are not taken as already kept ------------------------


def test_an_append_after_the_commit_says_whether_it_was_kept_before(api):
    put(api, history="messages")
    turn = Turn(api, session(api))
    said = {"role": "user", "text": "ship friday", "sequence": 1}
    api.ok("POST", f"{turn.path}/events", {"events": [said]})
    turn.commit()

    def append(*events):
        status, body = api.call("POST", f"{turn.path}/events", {"events": list(events)})
        assert (status, body["error"]["code"]) == (409, "turn_closed")
        return body["error"]["alreadyKept"]

    assert append(said) is True  # delivered again
    assert append({**said, "sequence": 2}) is False  # came too late
    assert append({**said, "text": "ship monday"}) is False  # another event at a kept sequence
    assert append({"role": "user", "text": "no sequence"}) is False
