"""File memory through the management API and the `memory` tool, on both stores."""

import hashlib

import pytest

pytestmark = pytest.mark.integration

A = "/v1/agents/teams/web/releases"
M = A + "/-/memories"
SEED = (
    "---\ndescription: How the web team tags and ships a release\n---\n\n"
    "Tag releases vX.Y.Z from main.\n"
)
AGENT = {"role": "agent"}


def sha(text):
    return hashlib.sha256(text.encode()).hexdigest()


@pytest.fixture
def agent(api):
    api.ok("PUT", A, {"harness": {"memory": {"access": "read_write"}}}, expect=201)
    return api


class Turn:
    def __init__(self, api, session, **begin):
        self.api = api
        self.id = api.ok("POST", f"{A}/-/sessions/{session}/turns", begin, expect=201)["id"]
        self.path = f"{A}/-/sessions/{session}/turns/{self.id}"

    def memory(self, caller=AGENT, **command):
        return self.api.call("POST", f"{self.path}/tools/memory", {**command, "caller": caller})

    def ok(self, **command):
        status, body = self.memory(**command)
        assert status == 200, (status, body)
        return body["output"]["result"]

    def commit(self):
        return self.api.call("POST", f"{self.path}/commit")


def session(api):
    return api.ok("POST", f"{A}/-/sessions", expect=201)["id"]


def test_seed_with_compare_and_swap(agent):
    created = agent.ok(
        "PUT", f"{M}/conventions/release.md", {"content": SEED, "contentSha256": ""}, expect=201
    )
    assert created["path"] == "/memories/conventions/release.md"
    assert created["version"] == 1
    assert created["contentSha256"] == sha(SEED)
    assert created["description"] == "How the web team tags and ships a release"

    status, body = agent.call(
        "PUT", f"{M}/conventions/release.md", {"content": "other", "contentSha256": ""}
    )
    assert (status, body["error"]["code"]) == (409, "memory_conflict")
    assert body["error"]["current"]["content"] == SEED

    updated = agent.ok(
        "PUT",
        f"{M}/conventions/release.md",
        {"content": SEED + "Ship on Tuesdays.\n", "contentSha256": sha(SEED)},
    )
    assert updated["version"] == 2
    status, body = agent.call(
        "PUT", f"{M}/conventions/release.md", {"content": "stale write", "contentSha256": sha(SEED)}
    )
    assert (status, body["error"]["code"]) == (409, "memory_conflict")
    assert body["error"]["current"]["version"] == 2
    got = agent.ok("GET", f"{M}/conventions/release.md")
    assert got["content"] == SEED + "Ship on Tuesdays.\n"


def test_list_by_prefix_without_content(agent):
    for path in ["conventions/release.md", "conventions/tags.md", "people/ana.md", "z.md"]:
        agent.ok("PUT", f"{M}/{path}", {"content": f"# {path}\n"}, expect=201)
    listed = agent.ok("GET", M, pathPrefix="conventions")["memories"]
    assert [m["path"] for m in listed] == [
        "/memories/conventions/release.md",
        "/memories/conventions/tags.md",
    ]
    assert set(listed[0]) == {
        "agentId",
        "path",
        "bytes",
        "contentSha256",
        "description",
        "version",
        "updatedAt",
        "updatedBy",
    }
    first = agent.ok("GET", M, limit=3)
    second = agent.ok("GET", M, limit=3, cursor=first["next"])
    assert len(first["memories"]) == 3 and len(second["memories"]) == 1
    assert second["next"] is None
    assert agent.ok("GET", M, pathPrefix="/memories/people/")["memories"][0]["path"] == (
        "/memories/people/ana.md"
    )
    by_file = agent.ok("GET", M, pathPrefix="conventions/release.md")["memories"]
    assert [m["path"] for m in by_file] == ["/memories/conventions/release.md"]


def test_delete_a_memory_or_a_folder(agent):
    for path in ["a/one.md", "a/two.md", "b.md"]:
        agent.ok("PUT", f"{M}/{path}", {"content": "x"}, expect=201)
    assert agent.call("DELETE", f"{M}/b.md") == (204, None)
    # A folder, or the whole of /memories, goes only when the call says so.
    for folder in (f"{M}/a", f"{M}//memories", f"{M}/a/"):
        status, body = agent.call("DELETE", folder)
        assert (status, body["error"]["code"]) == (400, "recursive_required"), folder
    assert len(agent.ok("GET", M)["memories"]) == 2
    assert agent.call("DELETE", f"{M}/a", recursive="true") == (204, None)
    assert agent.ok("GET", M)["memories"] == []
    status, body = agent.call("DELETE", f"{M}/a", recursive="true")
    assert (status, body["error"]["code"]) == (404, "memory_not_found")
    versions = agent.ok("GET", A + "/-/memory-versions")["versions"]
    assert [v["operation"] for v in versions][:3] == ["delete", "delete", "delete"]
    one = agent.ok("GET", f"{A}/-/memory-versions/{versions[0]['id']}")
    assert one["content"] is None


@pytest.mark.parametrize("recursive", [None, "true"])
def test_deleting_a_path_where_nothing_is_says_so(agent, recursive):
    # Given an agent whose only memory is notes/a.md
    agent.ok("PUT", f"{M}/notes/a.md", {"content": "x"}, expect=201)
    query = {"recursive": recursive} if recursive else {}
    # When a folder and a file that hold nothing are deleted
    for path, shown in (("nope", "/memories/nope"), ("notes/deeper/", "/memories/notes/deeper")):
        status, body = agent.call("DELETE", f"{M}/{path}", **query)
        # Then each is a 404 saying nothing is there, not that it is a folder
        assert (status, body["error"]["code"]) == (404, "memory_not_found"), path
        assert body["error"]["message"] == f"no memory or folder at {shown}"
    status, body = agent.call("DELETE", f"{M}/nope.md", **query)
    assert (status, body["error"]["message"]) == (404, "no memory at /memories/nope.md")
    assert [m["path"] for m in agent.ok("GET", M)["memories"]] == ["/memories/notes/a.md"]


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("a/../b.md", 400),
        ("./b.md", 400),
        ("a/./b.md", 400),
        ("notes.txt", 400),
        ("a//b.md", 400),
        ("x" * 520 + ".md", 400),
    ],
)
def test_bad_paths_are_400_and_store_nothing(agent, path, status):
    got, body = agent.call("PUT", f"{M}/{path}", {"content": "x"})
    assert (got, body["error"]["code"]) == (status, "invalid_path")
    assert agent.ok("GET", M)["memories"] == []


def test_paths_of_512_characters_hold_whatever_bytes_they_take(agent):
    # 500 four-byte characters: 2,000 bytes, past the 1,024 a DynamoDB sort key holds. Two such
    # paths share their first 1,000 bytes and differ only at the end.
    smile = "\U0001f600"
    folder = smile * 250
    paths = [f"/memories/{folder}/{smile * 240}{end}.md" for end in ("a", "b")]
    assert all(len(p) <= 512 < len(p.encode()) for p in paths)
    for path in paths:
        agent.ok("PUT", f"{M}/{path[len('/memories/') :]}", {"content": path[-4:]}, expect=201)
    for path in paths:
        assert agent.ok("GET", f"{M}/{path[len('/memories/') :]}")["content"] == path[-4:]
    listed = agent.ok("GET", M, pathPrefix=folder)["memories"]
    assert sorted(m["path"] for m in listed) == paths
    assert [m["path"] for m in agent.ok("GET", M, pathPrefix="other")["memories"]] == []
    first = agent.ok("GET", M, limit=1)
    second = agent.ok("GET", M, limit=1, cursor=first["next"])
    assert {first["memories"][0]["path"], second["memories"][0]["path"]} == set(paths)
    assert agent.call("DELETE", f"{M}/{paths[0][len('/memories/') :]}") == (204, None)
    assert [m["path"] for m in agent.ok("GET", M)["memories"]] == [paths[1]]


def test_exactly_100_kib_is_accepted_and_one_byte_more_is_413(agent):
    agent.ok("PUT", f"{M}/big.md", {"content": "x" * (100 * 1024)}, expect=201)
    status, body = agent.call("PUT", f"{M}/bigger.md", {"content": "x" * (100 * 1024 + 1)})
    assert (status, body["error"]["code"]) == (413, "memory_too_large")
    assert [m["path"] for m in agent.ok("GET", M)["memories"]] == ["/memories/big.md"]


def test_the_tool_writes_in_the_turns_transaction(agent, services):
    s1, s2 = session(agent), session(agent)
    t = Turn(agent, s1, started_by="wake", trigger_run_id="run-7")
    assert (
        t.ok(command="create", path="/memories/notes.md", file_text="line one\n")
        == "File created successfully at: /memories/notes.md"
    )
    # The turn reads its own change at once; nobody else sees it before the commit.
    assert "line one" in t.ok(command="view", path="/memories/notes.md")
    status, body = Turn(agent, s2).memory(command="view", path="/memories/notes.md")
    assert (status, body["error"]["code"]) == (404, "memory.not_found")
    assert agent.call("GET", f"{M}/notes.md")[0] == 404

    events = services.events.subscribe("acme", "teams/web/releases", s1)
    assert t.commit()[0] == 200
    assert agent.ok("GET", f"{M}/notes.md")["content"] == "line one\n"
    version = agent.ok("GET", A + "/-/memory-versions", path="notes.md")["versions"][0]
    assert version["actor"] == "agent:teams/web/releases@1"
    assert (version["sessionId"], version["turnId"], version["triggerRunId"]) == (s1, t.id, "run-7")
    _, event = events.queue.get_nowait()
    assert event.type == "memory.updated"
    assert [c.model_dump(exclude_none=True) for c in event.changes] == [
        {"path": "/memories/notes.md", "operation": "create", "version": 1}
    ]


def test_a_rolled_back_turn_leaves_no_file_change(agent):
    agent.ok("PUT", f"{M}/keep.md", {"content": "keep\n"}, expect=201)
    t = Turn(agent, session(agent))
    t.ok(command="str_replace", path="/memories/keep.md", old_str="keep", new_str="changed")
    t.ok(command="create", path="/memories/new.md", file_text="new\n")
    agent.ok("POST", f"{t.path}/rollback")
    assert agent.ok("GET", f"{M}/keep.md")["content"] == "keep\n"
    assert agent.call("GET", f"{M}/new.md")[0] == 404


def test_rename_keeps_from_path(agent):
    agent.ok("PUT", f"{M}/old.md", {"content": "x\n"}, expect=201)
    t = Turn(agent, session(agent))
    assert t.ok(command="rename", old_path="/memories/old.md", new_path="/memories/new.md") == (
        "Successfully renamed /memories/old.md to /memories/new.md"
    )
    assert t.commit()[0] == 200
    assert agent.call("GET", f"{M}/old.md")[0] == 404
    moved = agent.ok("GET", f"{M}/new.md")
    assert moved["version"] == 2
    versions = agent.ok("GET", A + "/-/memory-versions", path="/memories/old.md")["versions"]
    assert (versions[0]["operation"], versions[0]["fromPath"]) == ("rename", "/memories/old.md")


@pytest.mark.parametrize(
    ("manifest", "caller"),
    [({"access": "read_only"}, AGENT), ({}, {"role": "agent_as_tool"}), ({}, {"role": "helper"})],
)
def test_only_the_sessions_own_agent_writes(api, manifest, caller):
    api.ok("PUT", A, {"harness": {"memory": manifest}}, expect=201)
    t = Turn(api, session(api))
    status, body = t.memory(caller=caller, command="create", path="/memories/x.md", file_text="x")
    assert (status, body["error"]["code"]) == (403, "memory.forbidden")
    reason = (
        "this agent's memory is read_only"
        if caller["role"] == "agent"
        else "only the session's own agent writes"
    )
    assert body["error"]["message"] == f"Error: Memory is read-only here: {reason}."
    status, body = t.memory(caller=caller, command="view", path="/memories")
    assert status == 200
    t.commit()
    assert api.ok("GET", M)["memories"] == []


def test_without_a_memory_section_the_tool_is_not_offered(api):
    api.ok("PUT", A, {"harness": {}}, expect=201)
    status, body = Turn(api, session(api)).memory(command="view", path="/memories")
    assert (status, body["error"]["code"]) == (403, "tool_not_offered")


def test_a_replayed_turn_applies_a_write_once(agent):
    s = session(agent)
    original = Turn(agent, s)
    caller = {"role": "agent", "execution": "ex-9"}
    original.memory(caller=caller, command="create", path="/memories/once.md", file_text="1\n")
    original.commit()
    replay = Turn(agent, s, replay_of=original.id)
    status, body = replay.memory(
        caller=caller, command="create", path="/memories/once.md", file_text="1\n"
    )
    assert status == 200
    assert body["output"]["result"] == "File created successfully at: /memories/once.md"
    replay.commit()
    assert agent.ok("GET", f"{M}/once.md")["version"] == 1
    assert len(agent.ok("GET", A + "/-/memory-versions")["versions"]) == 1


def test_a_commit_over_a_concurrent_change_is_a_conflict_and_applies_nothing(agent):
    agent.ok("PUT", f"{M}/shared.md", {"content": "v1\n"}, expect=201)
    t = Turn(agent, session(agent))
    t.ok(command="str_replace", path="/memories/shared.md", old_str="v1", new_str="turn")
    t.ok(command="create", path="/memories/side.md", file_text="side\n")
    agent.ok("PUT", f"{M}/shared.md", {"content": "app\n"})
    status, body = t.commit()
    assert (status, body["error"]["code"]) == (409, "memory_conflict")
    assert agent.ok("GET", f"{M}/shared.md")["content"] == "app\n"
    assert agent.call("GET", f"{M}/side.md")[0] == 404
    assert agent.ok("POST", f"{t.path}/rollback")["status"] == "rolled_back"


def test_a_memory_deleted_and_created_again_meanwhile_is_a_conflict(agent):
    # The app's new memory starts again at version 1, the version the turn read: the commit
    # must still see that it is another memory, and keep it.
    agent.ok("PUT", f"{M}/notes.md", {"content": "old fact\n"}, expect=201)
    t = Turn(agent, session(agent))
    t.ok(command="str_replace", path="/memories/notes.md", old_str="old", new_str="edited")
    agent.ok("DELETE", f"{M}/notes.md", expect=204)
    assert agent.ok("PUT", f"{M}/notes.md", {"content": "new\n"}, expect=201)["version"] == 1
    status, body = t.commit()
    assert (status, body["error"]["code"]) == (409, "memory_conflict")
    assert agent.ok("GET", f"{M}/notes.md")["content"] == "new\n"


def test_a_write_landing_while_the_command_runs_is_a_conflict(agent, services, monkeypatch):
    # An app's write lands after the command read the memory and before the tool call ends:
    # the turn's change is based on what the command read, so its commit must not overwrite it.
    import agent_memory.domain.files.service as files

    agent.ok("PUT", f"{M}/notes.md", {"content": "line one\n"}, expect=201)
    run_command = files.run_command

    def app_writes_meanwhile(body, view, **limits):
        result = run_command(body, view, **limits)
        services.files.put("acme", "teams/web/releases", "notes.md", "app\n", None, "api:app")
        return result

    t = Turn(agent, session(agent))
    monkeypatch.setattr(files, "run_command", app_writes_meanwhile)
    t.ok(command="str_replace", path="/memories/notes.md", old_str="one", new_str="two")
    monkeypatch.setattr(files, "run_command", run_command)
    status, body = t.commit()
    assert (status, body["error"]["code"]) == (409, "memory_conflict")
    assert agent.ok("GET", f"{M}/notes.md")["content"] == "app\n"


def test_a_folder_change_one_commit_cannot_write_is_refused_when_asked(agent):
    # 40 renames write 120 items; one DynamoDB transaction takes 100. Refused at the tool call,
    # with nothing staged, rather than accepted and then impossible to commit.
    for i in range(40):
        agent.ok("PUT", f"{M}/big/f{i:02d}.md", {"content": f"{i}\n"}, expect=201)
    t = Turn(agent, session(agent))
    status, body = t.memory(command="rename", old_path="/memories/big", new_path="/memories/b2")
    assert (status, body["error"]["code"]) == (409, "memory.turn_limit")
    assert t.commit()[0] == 200
    assert len(agent.ok("GET", M, pathPrefix="big", limit=100)["memories"]) == 40
    # What fits is taken and commits on either store: 30 renames, then 48 deletes.
    for i in range(30, 40):
        agent.ok("DELETE", f"{M}/big/f{i:02d}.md", expect=204)
    t = Turn(agent, session(agent))
    t.ok(command="rename", old_path="/memories/big", new_path="/memories/b2")
    assert t.commit()[0] == 200
    for i in range(18):
        agent.ok("PUT", f"{M}/b2/g{i:02d}.md", {"content": "x"}, expect=201)
    t = Turn(agent, session(agent))
    t.ok(command="delete", path="/memories/b2")
    assert t.commit()[0] == 200
    assert agent.ok("GET", M)["memories"] == []


def test_the_index_lists_newest_first_with_descriptions_and_compaction_refreshes_it(agent):
    agent.ok("PUT", f"{M}/conventions/release.md", {"content": SEED}, expect=201)
    agent.ok("PUT", f"{M}/plain.md", {"content": "no frontmatter\n"}, expect=201)
    s = session(agent)
    index = agent.ok("GET", f"{A}/-/sessions/{s}/memory-index")["index"]
    assert index.splitlines() == [
        "/memories/plain.md",
        "/memories/conventions/release.md — How the web team tags and ships a release",
    ]
    agent.ok("PUT", f"{M}/later.md", {"content": "---\ndescription: Later\n---\n"}, expect=201)
    # The session keeps the index it opened with until a compaction refreshes it.
    assert agent.ok("GET", f"{A}/-/sessions/{s}/memory-index")["index"] == index
    refreshed = agent.ok("POST", f"{A}/-/sessions/{s}/compact")["index"]
    assert refreshed.splitlines()[0] == "/memories/later.md — Later"


def limited_api(services, store, **limits):
    """An API over the same store with other limits."""
    from agent_memory.api.app import Api
    from agent_memory.bootstrap import build_services
    from agent_memory.settings import Settings
    from apiclient import ApiClient

    settings = Settings(data_dir=services.settings.data_dir, **limits)
    return ApiClient(Api(build_services(settings, store=store, embedder=None)).handle)


def test_the_index_says_when_memories_are_left_out(api, services, store):
    small = limited_api(services, store, memory_index_lines=2)
    small.ok("PUT", A, {"harness": {"memory": {}}}, expect=201)
    for i in range(4):
        small.ok("PUT", f"{M}/n{i}.md", {"content": "x"}, expect=201)
    s = small.ok("POST", f"{A}/-/sessions", expect=201)["id"]
    lines = small.ok("GET", f"{A}/-/sessions/{s}/memory-index")["index"].splitlines()
    # The line that says so counts within the limit too: two lines, not three.
    assert lines == [
        "/memories/n3.md",
        "(3 older memories are not listed: view their folders for the rest)",
    ]


def test_the_index_and_its_note_stay_within_the_byte_limit(api, services, store):
    small = limited_api(services, store, memory_index_bytes=256)
    small.ok("PUT", A, {"harness": {"memory": {}}}, expect=201)
    for i in range(5):  # 75 bytes a line: three fit in 256, but not three and the note
        small.ok("PUT", f"{M}/{'x' * 60}{i}.md", {"content": "x"}, expect=201)
    s = small.ok("POST", f"{A}/-/sessions", expect=201)["id"]
    index = small.ok("GET", f"{A}/-/sessions/{s}/memory-index")["index"]
    assert len(index.encode()) <= 256
    assert index.splitlines()[-1] == (
        "(3 older memories are not listed: view their folders for the rest)"
    )
    assert len(index.splitlines()) == 3


def test_fork_copies_memories_at_version_one_and_delete_removes_them(agent):
    agent.ok("PUT", f"{M}/a.md", {"content": "1"}, expect=201)
    agent.ok("PUT", f"{M}/a.md", {"content": "2"})
    agent.ok("POST", A + "/-/fork", {"id": "teams/web/copy"}, expect=201)
    copy = agent.ok("GET", "/v1/agents/teams/web/copy/-/memories/a.md")
    assert (copy["content"], copy["version"]) == ("2", 1)
    history = agent.ok("GET", "/v1/agents/teams/web/copy/-/memory-versions")["versions"]
    assert len(history) == 1
    assert agent.call("DELETE", A) == (204, None)
    agent.ok("PUT", A, {"harness": {"memory": {}}}, expect=201)
    assert agent.ok("GET", M)["memories"] == []
    assert agent.ok("GET", A + "/-/memory-versions")["versions"] == []


def test_memories_of_a_missing_agent_are_404(api):
    status, body = api.call("PUT", "/v1/agents/nobody/-/memories/a.md", {"content": "x"})
    assert (status, body["error"]["code"]) == (404, "agent_not_found")


def test_ten_thousand_memories_is_the_limit(agent, store):
    from datetime import UTC, datetime

    from agent_memory.domain.files.models import FileMemory, FileVersion, FileWrite

    now = datetime.now(UTC)

    def create(i: int) -> FileWrite:
        path = f"/memories/bulk/{i:05d}.md"
        return FileWrite(
            path=path,
            head=FileMemory(
                tenant="acme",
                agent_id="teams/web/releases",
                path=path,
                content="x",
                bytes=1,
                content_sha256=sha("x"),
                version=1,
                updated_at=now,
                updated_by="test",
            ),
            expected_version=None,
            versions=[
                FileVersion(
                    id=f"fv_{i:026d}",
                    agent_id="teams/web/releases",
                    path=path,
                    operation="create",
                    actor="test",
                    version=1,
                    content="x",
                    at=now,
                )
            ],
            count_delta=1,
        )

    # Given 9,999 memories. On SQLite they are real rows. moto copies the whole table for each
    # transaction, so 9,999 real items take minutes there: DynamoDB gets a few real ones and
    # its counter item (what the limit is enforced on) is set to 9,999.
    if type(store).__name__ == "DynamoStore":
        for start in range(0, 48, 24):
            store.write_files(
                "acme", "teams/web/releases", [create(i) for i in range(start, start + 24)], 10_000
            )
        counter = store._items.file_count.at("acme", "teams/web/releases")
        counter.update(actions=[type(counter).memories.set(9_999)])
    else:
        for start in range(0, 9_999, 24):
            batch = [create(i) for i in range(start, min(start + 24, 9_999))]
            store.write_files("acme", "teams/web/releases", batch, 10_000)
    assert store.count_files("acme", "teams/web/releases") == 9_999

    # When the 10,000th arrives it is kept; the 10,001st is refused, by the API and the tool
    agent.ok("PUT", f"{M}/last.md", {"content": "x"}, expect=201)
    status, body = agent.call("PUT", f"{M}/one-more.md", {"content": "x"})
    assert (status, body["error"]["code"]) == (409, "limit_exceeded")
    t = Turn(agent, session(agent))
    status, body = t.memory(command="create", path="/memories/tool.md", file_text="x")
    assert (status, body["error"]["code"]) == (400, "memory.limit")
    # Replacing an existing memory is still fine at the limit.
    agent.ok("PUT", f"{M}/last.md", {"content": "y"})
    assert store.count_files("acme", "teams/web/releases") == 10_000


def test_file_memories_are_searchable_by_path_description_and_meaning(agent, store):
    if type(store).__name__ != "SqliteStore":
        pytest.skip("the cloud shape indexes files through the stream indexer and OpenSearch")
    agent.ok("PUT", f"{M}/conventions/release.md", {"content": SEED}, expect=201)
    agent.ok(
        "PUT",
        f"{M}/people/ana.md",
        {"content": "---\ndescription: Ana, billing owner\n---\nAna runs billing.\n"},
        expect=201,
    )
    agent.ok("PUT", f"{M}/gone.md", {"content": "Releases are tagged on Fridays\n"}, expect=201)
    agent.ok("DELETE", f"{M}/gone.md", expect=204)

    by_meaning = agent.ok("GET", M, query="how do we publish a new version?")["memories"]
    assert by_meaning[0]["path"] == "/memories/conventions/release.md"
    assert "/memories/gone.md" not in [m["path"] for m in by_meaning]
    by_words = agent.ok("GET", M, query="billing")["memories"]
    assert by_words[0]["path"] == "/memories/people/ana.md"
    in_folder = agent.ok("GET", M, query="billing", pathPrefix="conventions")["memories"]
    assert "/memories/people/ana.md" not in [m["path"] for m in in_folder]
    # A committed turn's changes are searchable too.
    t = Turn(agent, session(agent))
    t.ok(command="create", path="/memories/oncall.md", file_text="Pager rotation: weekly\n")
    assert t.commit()[0] == 200
    assert agent.ok("GET", M, query="pager rotation")["memories"][0]["path"] == (
        "/memories/oncall.md"
    )


def test_a_memory_made_and_deleted_in_one_turn_is_announced_by_no_event(agent, services):
    s = session(agent)
    t = Turn(agent, s)
    t.ok(command="create", path="/memories/scratch.md", file_text="tmp\n")
    t.ok(command="delete", path="/memories/scratch.md")
    t.ok(command="create", path="/memories/kept.md", file_text="kept\n")
    stream = services.events.subscribe("acme", "teams/web/releases", s)
    assert t.commit()[0] == 200
    announced = [stream.queue.get_nowait()[1] for _ in range(stream.queue.qsize())]
    assert [(c.path, c.operation) for e in announced for c in e.changes] == [
        ("/memories/kept.md", "create")
    ]
