"""Export and import through the API, on both stores: an agent read out as a bundle and written
into another service comes back as it was; importing again changes nothing; an interrupted import
continues where it stopped; a damaged bundle, a bad item and the wrong credential are refused
with nothing written."""

from __future__ import annotations

import gzip

import pytest

from agent_memory import bundle as bundles
from agent_memory.adapters.sqlite import SqliteStore
from agent_memory.api.app import Api
from agent_memory.bootstrap import build_services
from agent_memory.bundle import BundleError, export_bundle, import_bundle, read_bundle
from agent_memory.settings import Settings
from apiclient import ALL_SCOPES, ApiClient, drained
from transfer_agent import AGENT_ID, A, move, populate, reads, through

pytestmark = pytest.mark.integration


@pytest.fixture
def laptop(tmp_path, embedder):
    """Another embedded service, with the same model as the `api` fixture's."""
    (tmp_path / "laptop").mkdir()
    store = SqliteStore(tmp_path / "laptop" / "db.sqlite3")
    services = build_services(
        Settings(data_dir=tmp_path / "laptop"), store=store, embedder=embedder
    )
    yield ApiClient(drained(Api(services).handle, services))
    services.close()


@pytest.fixture
def exported(laptop, tmp_path):
    """The bundle of a populated agent of the laptop."""
    populate(laptop)
    path = tmp_path / "agent.bundle"
    export_bundle(path, [AGENT_ID], through(laptop)[0])
    return path


def test_an_imported_agent_answers_every_read_as_the_original(embedded, api, laptop, tmp_path):
    # Given an agent with versions of everything on an embedded service
    populate(api)
    # When it is exported and imported into another embedded service of the same model
    totals = move(api, laptop, tmp_path / "agent.bundle")
    # Then every read answers the same, ids, versions, timestamps and provenance included,
    # and the bundle's vectors are used as they are: nothing is embedded anew
    assert reads(laptop) == reads(api)
    assert totals.written == totals.items and totals.kept == 0
    assert totals.vectors_reused > 0 and totals.vectors_queued == 0


def test_a_page_ends_at_its_size_and_the_next_one_goes_on_from_there(
    api, laptop, tmp_path, monkeypatch
):
    # Given pages that end as soon as they hold anything (as one of about 3 MB would)
    from agent_memory.domain.transfer import exporting

    monkeypatch.setattr(exporting, "PAGE_BYTES", 1)
    populate(laptop)
    fetch = through(laptop)[0]
    sizes = []

    def counted(agent_id, cursor):
        page = fetch(agent_id, cursor)
        sizes.append(len(page["items"]))
        return page

    # When the agent is exported and imported
    path = tmp_path / "agent.bundle"
    export_bundle(path, [AGENT_ID], counted)
    import_bundle(path, through(api)[1])
    # Then each page held one item (the last may find none left), and nothing was lost
    assert set(sizes[:-1]) == {1} and sum(sizes) == len(read_bundle(path).items)
    assert reads(api, searches=False) == reads(laptop, searches=False)


def test_a_service_of_another_model_embeds_the_import_anew(embedded, api, tmp_path, embedder):
    from dataclasses import replace

    from agent_memory.domain.search.embeddings import Embedder

    class Another(Embedder):
        model_id, dimensions = "another/model", embedder.dimensions

        def embed(self, texts, *, query=False):
            return replace(embedder.embed(texts, query=query), model_id=self.model_id)

    # Given an agent on an embedded service, and an empty one embedding with another model
    populate(api)
    (tmp_path / "other").mkdir()
    store = SqliteStore(tmp_path / "other" / "db.sqlite3")
    services = build_services(
        Settings(data_dir=tmp_path / "other"), store=store, embedder=Another()
    )
    other = ApiClient(drained(Api(services).handle, services))
    # When the agent is imported there
    totals = move(api, other, tmp_path / "agent.bundle")
    # Then none of the bundle's vectors is used: each document is embedded by the new model,
    # and every read, searches included, answers as on the first service
    assert totals.vectors_reused == 0 and totals.vectors_queued > 0
    assert reads(other) == reads(api)
    models = store.db.read().execute("SELECT DISTINCT model_id FROM search_docs").fetchall()
    assert {row[0] for row in models} - {None} == {"another/model"}  # None: a removed memory
    services.close()


def test_importing_a_bundle_again_changes_nothing(api, laptop, exported):
    # Given a bundle imported once, into either store
    first = import_bundle(exported, through(api)[1])
    before = reads(api)
    # When it is imported again from the start
    (exported.parent / "agent.bundle.import-state").unlink()
    again = import_bundle(exported, through(api)[1])
    # Then every item is kept, nothing written, and every read answers as before
    assert first.written == first.items
    assert (again.written, again.kept) == (0, again.items)
    assert reads(api) == before


def test_an_interrupted_import_continues_where_it_stopped(api, laptop, exported, monkeypatch):
    # Given an import sent three items a batch that stops after its second batch
    monkeypatch.setattr(bundles, "BATCH_ITEMS", 3)
    send = through(api)[1]
    sent = []

    def stops(agent_id, items):
        if len(sent) == 2:
            raise ConnectionError("the connection dropped")
        sent.append(items)
        return send(agent_id, items)

    progress = []
    with pytest.raises(ConnectionError):
        import_bundle(exported, stops, progress=progress.append)
    assert progress == ["imported 3/17 items (18%)", "imported 6/17 items (35%)"]
    # When it is run again
    resumed = import_bundle(exported, send)
    # Then it starts after the six items done, and the agent is whole
    assert resumed.skipped == 6
    assert resumed.written == resumed.items - 6
    assert reads(api, searches=False) == reads(laptop, searches=False)


def _rewritten(path, change):
    lines = gzip.decompress(path.read_bytes()).split(b"\n")
    path.write_bytes(gzip.compress(b"\n".join(change(lines))))


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda p: p.write_bytes(p.read_bytes()[:-40]), id="cut short"),
        pytest.param(
            lambda p: _rewritten(p, lambda ls: [*ls[:2], ls[2].replace(b"0", b"1", 1), *ls[3:]]),
            id="a byte changed",
        ),
        pytest.param(lambda p: _rewritten(p, lambda ls: [*ls[:-2], b""]), id="no trailer"),
        pytest.param(
            lambda p: _rewritten(
                p, lambda ls: [ls[0].replace(b'"version":1', b'"version":9'), *ls[1:]]
            ),  # fmt: skip
            id="a later version",
        ),
        pytest.param(lambda p: p.write_bytes(b"PK\x03\x04 a zip"), id="not a bundle"),
    ],
)
def test_a_damaged_bundle_is_refused_whole_with_nothing_written(api, exported, damage):
    # Given a bundle damaged in one way
    damage(exported)
    sent = []
    # When it is imported, then it is refused before the first request, and nothing is written
    with pytest.raises(BundleError):
        import_bundle(exported, lambda agent, items: sent.append(items) or {})
    assert sent == []
    assert api.call("GET", A)[0] == 404


def test_a_bad_item_refuses_its_batch_with_nothing_written(api, exported):
    # Given a batch whose agent item is good and whose second item is not a bundle item
    items = read_bundle(exported).items
    bad = {**items[1], "versions": [{"record": {"id": 7}}]}
    # When it is sent, then it is a 400 naming the item, and not even the agent is written
    status, body = api.call("POST", f"{A}/-/import", {"items": [items[0], bad]})
    assert (status, body["error"]["code"]) == (400, "invalid_bundle_item")
    assert body["error"]["message"].startswith("item 1 ")
    assert api.call("GET", A)[0] == 404
    # And so are an id the service would never make, a path outside /memories, a non-object
    for item, code in (
        ({**items[1], "id": "rec#1"}, "invalid_record_id"),
        ({"type": "file", "agentId": AGENT_ID, "path": "/etc/passwd", "versions": [
            {"id": "v1", "agent_id": AGENT_ID, "path": "/etc/passwd", "operation": "create",
             "actor": "a", "version": 1, "at": "2026-01-01T00:00:00Z"}]}, "invalid_path"),
        ({**items[1], "versions": [{"record": []}]}, "invalid_bundle_item"),
        ({**items[0], "manifestVersions": [{**items[0]["manifestVersions"][0],
                                            "manifest": {"harness": 7}}]}, "invalid_manifest"),
    ):  # fmt: skip
        batch = [item] if item["type"] == "agent" else [items[0], item]
        status, body = api.call("POST", f"{A}/-/import", {"items": batch})
        assert (status, body["error"]["code"]) == (400, code)
    assert api.call("GET", A)[0] == 404
    # And an item of another agent is refused the same way
    other = {**items[0], "agentId": "someone/else"}
    status, body = api.call("POST", f"{A}/-/import", {"items": [other]})
    assert (status, body["error"]["code"]) == (400, "invalid_bundle_item")


def test_an_agent_of_that_id_made_here_is_not_overwritten(api, exported):
    # Given an agent of the bundle's id made on the target by an app
    api.ok("PUT", A, {"harness": {"memory": {"enabled": True}}}, expect=201)
    # When the bundle is imported, then it is a 409, and the agent is as it was
    items = read_bundle(exported).items
    status, body = api.call("POST", f"{A}/-/import", {"items": items[:1]})
    assert (status, body["error"]["code"]) == (409, "agent_exists")
    assert api.ok("GET", A)["manifestVersion"] == 1


@pytest.mark.parametrize(
    ("scope", "claims", "code"),
    [
        (ALL_SCOPES, {"roles": "agent"}, "transfer_forbidden"),
        ("agents:read agents:write", {}, "insufficient_scope"),
    ],
)
def test_an_agent_credential_or_one_without_admin_is_refused(api, exported, scope, claims, code):
    # Given the agent on the target, and a credential bound to the agent role or without admin
    items = read_bundle(exported).items
    api.ok("POST", f"{A}/-/import", {"items": items[:1]})
    caller = api.as_tenant("acme", scope, **claims)
    # When it exports or imports, then it is a 403 and nothing is read out or written
    status, body = caller.call("GET", f"{A}/-/export")
    assert (status, body["error"]["code"]) == (403, code)
    status, body = caller.call("POST", f"{A}/-/import", {"items": items[1:2]})
    assert (status, body["error"]["code"]) == (403, code)
    assert api.ok("GET", f"{A}/-/records", status="all")["records"] == []
