"""The model-backed entity extractor on the embedded shape (AGENT_MEMORY_ENTITY_MODEL): a write
links the rules' keys at once and never waits for the model; the worker adds the model's keys
later, billed as usage of purpose `entities`; a failed call leaves the rules' keys and the queue.
(The cloud's path, the stream indexer's ModelLinkedIndex, and both stores' `link_model`:
tests/contract/test_model_entity_links_contract.py.)"""

from __future__ import annotations

import threading

import pytest

from agent_memory.adapters.sqlite import SqliteStore
from agent_memory.api.app import Api
from agent_memory.bootstrap import build_services
from agent_memory.domain.search.entity_model import EntityModel, EntityModelFailed, Named
from agent_memory.settings import Settings
from apiclient import ApiClient

pytestmark = pytest.mark.integration

A = "/v1/agents/friends/assistant"
MANIFEST = {
    "harness": {
        "memory": {
            "enabled": True,
            "scope": {"read": ["agent"], "write": ["agent"]},
            "tools": ["add_memory"],
        },
        "history": {"index": "messages"},
    }
}


class FakeEntityModel(EntityModel):
    """Names the lower-case phrases of `phrases` a text holds, as a model would find what the
    rules cannot; `down` fails every call (a throttled or unreachable service)."""

    model_id = "fake-entities-v1"

    def __init__(self, *phrases: str) -> None:
        self.phrases = phrases
        self.calls: list[list[str]] = []
        self.down = False

    def _names(self, texts: list[str]) -> Named:
        if self.down:
            raise EntityModelFailed("the model service refused the call (ThrottlingException)")
        self.calls.append(list(texts))
        names = [[p for p in self.phrases if p in t.lower()] + ["Caroline's"] for t in texts]
        return Named(names, self.model_id, input_tokens=100 * len(texts), output_tokens=7)


@pytest.fixture
def sqlite(tmp_path):
    store = SqliteStore(tmp_path / "db.sqlite3")
    yield store
    store.close()


def open_api(sqlite, tmp_path, embedder, model):
    services = build_services(
        Settings(data_dir=tmp_path), store=sqlite, embedder=embedder, entity_model=model
    )
    return services, ApiClient(Api(services).handle)


def keys(api) -> dict[str, int]:
    return {e["key"]: e["count"] for e in api.ok("GET", f"{A}/-/entities")["entities"]}


def seed(api, new: bool = True) -> str:
    api.ok("PUT", A, MANIFEST, expect=201 if new else 200)
    sid = api.ok("POST", f"{A}/-/sessions", {"id": "s1"}, expect=201)["id"]
    turn = api.ok("POST", f"{A}/-/sessions/{sid}/turns", {}, expect=201)["id"]
    path = f"{A}/-/sessions/{sid}/turns/{turn}"
    said = [{"role": "user", "text": "I took a pottery class.", "metadata": {"speaker": "Mel"}}]
    api.ok("POST", f"{path}/events", {"events": said})
    api.ok(
        "POST",
        f"{path}/tools/add_memory",
        {"summary": "Melanie loves pottery", "scope": "agent", "caller": {"role": "agent"}},
    )
    api.ok("POST", f"{path}/commit")
    return path


def test_a_write_links_the_rules_keys_at_once_and_the_models_when_it_answers(
    sqlite, tmp_path, embedder
):
    # Given an entity model that names `pottery` (lower case: the rules never key it)
    model = FakeEntityModel("pottery")
    services, api = open_api(sqlite, tmp_path, embedder, model)

    # When a turn commits a message and a record
    turn = seed(api)

    # Then the commit called the model for nothing; the rules' keys are there at once
    assert model.calls == []
    assert keys(api) == {"mel": 1, "melanie": 1}
    assert services.entities is not None and services.entities.backlog == 2

    # When the worker runs: one call for both texts, their keys normalised as the rules' are
    assert services.drain_entities() == 2
    assert len(model.calls) == 1 and len(model.calls[0]) == 2
    assert keys(api) == {"caroline": 2, "mel": 1, "melanie": 1, "pottery": 2}
    assert services.entities.backlog == 0
    pottery = next(e for e in api.ok("GET", f"{A}/-/entities")["entities"] if e["key"] == "pottery")
    assert {i["type"] for i in pottery["items"]} == {"record", "history"}

    # And the call is usage of purpose entities on the turn that wrote them, its tokens in full
    rows = [u for u in api.ok("GET", turn)["usage"] if u["purpose"] == "entities"]
    assert sum(u["inputTokens"] for u in rows) == 200
    assert sum(u["outputTokens"] for u in rows) == 7
    assert {u["modelId"] for u in rows} == {"fake-entities-v1"}

    # And asking again changes nothing (the queue is empty; the links are as they were)
    assert services.drain_entities() == 0
    assert keys(api)["pottery"] == 2


def test_a_failed_call_leaves_the_rules_keys_and_the_queue_for_later(sqlite, tmp_path, embedder):
    # Given a model that is down
    model = FakeEntityModel("pottery")
    model.down = True
    services, api = open_api(sqlite, tmp_path, embedder, model)
    seed(api)

    # When the worker tries: the call fails, alone as in the batch
    with pytest.raises(EntityModelFailed):
        services.drain_entities()

    # Then the rules' keys stand, nothing is billed, and the texts wait in the queue
    assert keys(api) == {"mel": 1, "melanie": 1}
    assert services.entities is not None and services.entities.backlog == 2

    # When the model is back, the same texts get its keys
    model.down = False
    assert services.drain_entities() == 2
    assert keys(api)["pottery"] == 2


def test_a_new_text_drops_the_models_old_keys_and_the_same_text_keeps_them(
    sqlite, tmp_path, embedder
):
    model = FakeEntityModel("pottery", "camping")
    services, api = open_api(sqlite, tmp_path, embedder, model)
    api.ok("PUT", A, MANIFEST, expect=201)
    note = f"{A}/-/memories/people/mel.md"
    api.ok("PUT", note, {"content": "Mel enjoys pottery.\n"}, expect=201)
    services.drain_entities()
    assert keys(api) == {"caroline": 1, "mel": 1, "pottery": 1}

    # When the memory gets a new text: the model's old keys go at once, the rules' come
    api.ok("PUT", note, {"content": "Mel went camping with Oscar.\n"})
    assert keys(api) == {"mel": 1, "oscar": 1}

    # Then the model's answer for the new text adds its keys
    assert services.drain_entities() == 1
    assert keys(api) == {"camping": 1, "caroline": 1, "mel": 1, "oscar": 1}

    # And a record's new version of the same text (its expiry set) keeps them without a call
    seed(api, new=False)
    services.drain_entities()
    calls = len(model.calls)
    record = api.ok("GET", f"{A}/-/records")["records"][0]
    changed = api.ok(
        "PATCH", f"{A}/-/records/{record['id']}", {"expiresAt": "2999-01-01T00:00:00Z"}
    )
    assert changed["version"] == record["version"] + 1
    assert services.entities is not None and services.entities.backlog == 0
    assert len(model.calls) == calls
    assert keys(api)["pottery"] == 2 and keys(api)["melanie"] == 1


def test_a_deleted_document_or_agent_leaves_nothing_queued(sqlite, tmp_path, embedder):
    model = FakeEntityModel("pottery")
    services, api = open_api(sqlite, tmp_path, embedder, model)
    api.ok("PUT", A, MANIFEST, expect=201)
    note = f"{A}/-/memories/mel.md"
    api.ok("PUT", note, {"content": "Mel enjoys pottery.\n"}, expect=201)
    api.ok("DELETE", note, expect=204)
    assert services.entities is not None and services.entities.backlog == 0

    seed(api, new=False)
    assert services.entities.backlog == 2
    api.ok("DELETE", A, expect=204)
    assert services.entities.backlog == 0
    assert services.drain_entities() == 0 and model.calls == []


def test_the_thread_retries_after_a_failure_and_stops_cleanly(sqlite, tmp_path, embedder):
    # Given the worker's thread running over a model that is down
    model = FakeEntityModel("pottery")
    model.down = True
    services, api = open_api(sqlite, tmp_path, embedder, model)
    worker = services.entities
    assert worker is not None
    worker._backoff = 0.05
    seed(api)
    worker.run_in_background()
    try:
        threading.Event().wait(0.2)
        assert keys(api) == {"mel": 1, "melanie": 1}  # the rules' keys stand meanwhile

        # When the model comes back, the thread adds its keys by itself
        model.down = False
        for _ in range(200):
            if worker.backlog == 0:
                break
            threading.Event().wait(0.05)
        assert worker.backlog == 0 and keys(api)["pottery"] == 2
    finally:
        worker.stop(timeout=5)
    assert worker._thread is None


def test_without_an_entity_model_nothing_is_queued(sqlite, tmp_path, embedder):
    services, api = open_api(sqlite, tmp_path, embedder, None)
    seed(api)
    assert services.entities is None
    assert sqlite.db.read().execute("SELECT count(*) FROM entity_queue").fetchone()[0] == 0
    assert keys(api) == {"mel": 1, "melanie": 1}
