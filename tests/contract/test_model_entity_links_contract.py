"""The EntityLinks port's model keys (domain/search/entity_model.py): `link` tells which documents
the model has not read, `link_model` merges its keys with the rules' keys, idempotently, and only
for the text the document still has. Every test runs on the embedded shape (the SQLite file) and
the cloud's (the DynamoDB table under moto, written through ModelLinkedIndex as the stream
indexer writes)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_memory.adapters.dynamodb.entity_links import DynamoEntityLinks
from agent_memory.adapters.sqlite import SqliteStore
from agent_memory.domain.search.entities import entities
from agent_memory.domain.search.entity_model import (
    ENTITY_ATTEMPTS,
    ENTITY_BATCH,
    EntityModel,
    EntityModelFailed,
    ModelLinkedIndex,
    Named,
)
from agent_memory.domain.search.hops import entity_hops
from agent_memory.domain.search.index import IndexDoc, SearchIndex
from agent_memory.domain.search.links import EntityLinks, text_sha
from agent_memory.domain.search.ranking import Ranked
from agent_memory.domain.usage.models import Usage
from index_docs import T0, doc

pytestmark = pytest.mark.contract

AGENT = "teams/web"
REGION = "us-east-1"


class Model(EntityModel):
    """Names what `names` gives each text; fails `failures` calls first (a throttled service)."""

    model_id = "fake-entities-v1"

    def __init__(self, names: dict[str, list[str]], failures: int = 0) -> None:
        self.names = names
        self.failures = failures
        self.calls: list[list[str]] = []

    def _names(self, texts: list[str]) -> Named:
        if self.failures:
            self.failures -= 1
            raise EntityModelFailed("the model service refused the call (ThrottlingException)")
        self.calls.append(texts)
        return Named([self.names.get(t, []) for t in texts], self.model_id, 10 * len(texts), 3)


@pytest.fixture(params=["sqlite", "dynamodb"])
def links(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[EntityLinks]:
    if request.param == "sqlite":
        store = SqliteStore(tmp_path / "db.sqlite3")
        yield store.attach_index(None, None).links
        store.close()
        return
    request.getfixturevalue("s3vectors_search_index")  # the table, under moto
    yield DynamoEntityLinks("agent-memory-s3v", REGION)


def named(doc_id: str, text: str, **fields: object) -> IndexDoc:
    return doc(doc_id, text, entities=entities(text), **fields)


def listing(links: EntityLinks) -> dict[str, int]:
    return {e.key: e.count for e in links.entities("t1", AGENT, "", 100, None, 10)}


def test_link_tells_what_the_model_has_not_read_and_link_model_merges_its_keys(
    links: EntityLinks,
) -> None:
    # Given two records, one naming Caroline by the rules, one naming nothing the rules see
    r1 = named("r1", "Caroline took a pottery class")
    r2 = named("r2", "we went camping by the lake")
    pending = links.link([r1, r2, named("draft", "Caroline", preview=True)])

    # Then both wait for the model (a preview one never does), and only the rules' key is linked
    assert [d.id for d in pending] == ["r1", "r2"]
    assert listing(links) == {"caroline": 1}

    # When the model answers for both texts (keys normalised as the rules' are)
    assert links.link_model(r1, text_sha(r1.text), ["caroline", "pottery class"])
    assert links.link_model(r2, text_sha(r2.text), ["camping", "lake"])

    # Then the links are the union, and the model's keys are found as the rules' are
    assert listing(links) == {"caroline": 1, "pottery class": 1, "camping": 1, "lake": 1}
    assert [m.id for m in links.mentions("t1", AGENT, "camping", "record", 10)] == ["r2"]
    assert links.entities_of("t1", AGENT, "record", ["r1"]) == {"r1": ("caroline", "pottery class")}

    # And the same answer again changes nothing; linking the same text again asks nothing
    assert links.link_model(r1, text_sha(r1.text), ["caroline", "pottery class"])
    assert links.link([r1, r2]) == []
    assert listing(links) == {"caroline": 1, "pottery class": 1, "camping": 1, "lake": 1}


def test_a_new_text_replaces_the_models_keys_and_a_stale_answer_is_dropped(
    links: EntityLinks,
) -> None:
    old = named("r1", "Caroline took a pottery class")
    links.link([old])
    links.link_model(old, text_sha(old.text), ["pottery class"])

    # When a new version with a new text is linked: the model's keys go, the model is asked
    new = named("r1", "Melanie went camping", version=2)
    assert [d.id for d in links.link([new])] == ["r1"]
    assert listing(links) == {"melanie": 1}

    # Then an answer for the old text is dropped; the new text's is kept
    assert not links.link_model(old, text_sha(old.text), ["pottery class"])
    assert listing(links) == {"melanie": 1}
    assert links.link_model(new, text_sha(new.text), ["camping"])
    assert listing(links) == {"melanie": 1, "camping": 1}

    # And a newer version of the same text keeps them without asking
    assert links.link([named("r1", "Melanie went camping", version=3)]) == []
    assert listing(links) == {"melanie": 1, "camping": 1}

    # And a superseded version links nothing, and no answer brings its keys back
    gone = named("r1", "Melanie went camping", version=4, status="SUPERSEDED")
    assert links.link([gone]) == []
    assert not links.link_model(gone, text_sha(gone.text), ["camping"])
    assert listing(links) == {}


def test_a_query_key_meets_a_model_key_in_the_hops(links: EntityLinks) -> None:
    # Given two events the rules link by nothing but that the model links by `pottery`
    e1 = named("evt_1.1", "I signed up for pottery", kind="event", scope="session")
    e2 = named("evt_2.1", "my pottery bowl cracked", kind="event", scope="session")
    links.link([e1, e2])
    assert listing(links) == {}
    for each in (e1, e2):
        links.link_model(each, text_sha(each.text), ["pottery"])

    # When a question names Pottery (the rules key it from the query, offline)
    ranked = [Ranked(id="evt_9.1", score=1.0, created_at=T0)]
    found = entity_hops(ranked, "What did Pottery class teach?", links, "t1", AGENT)

    # Then the events the model linked by that key come in
    assert {r.id for r in found} >= {"evt_1.1", "evt_2.1"}


@pytest.fixture(params=["sqlite", "dynamodb"])
def indexed(
    request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[tuple[SearchIndex, EntityLinks]]:
    """The index a model-backed indexer writes through: the embedded index itself (its worker
    asks the model, tests/integration/test_model_entities.py) or the cloud's inner index."""
    if request.param == "sqlite":
        store = SqliteStore(tmp_path / "db.sqlite3")
        index = store.attach_index(None, None)
        yield index, index.links
        store.close()
        return
    inner = request.getfixturevalue("s3vectors_search_index")
    yield inner, DynamoEntityLinks("agent-memory-s3v", REGION)


def cloud(
    indexed: tuple[SearchIndex, EntityLinks], model: Model, kept: list[tuple[str, list[Usage]]]
) -> ModelLinkedIndex:
    index, links = indexed
    return ModelLinkedIndex(
        index,
        links,
        model,
        add_usage=lambda tenant, agent_id, rows: kept.append((agent_id, rows)),
        sleep=lambda _: None,
    )


def test_the_indexer_asks_the_model_in_batches_after_linking_and_bills_it(
    indexed: tuple[SearchIndex, EntityLinks],
) -> None:
    texts = [f"note {n} about the garden" for n in range(ENTITY_BATCH + 2)]
    # `Note` starts notes (no key, as for the rules); `the Garden's` is the rules' `garden`
    model = Model({t: ["garden", "Note", "the Garden's", "garden club"] for t in texts})
    kept: list[tuple[str, list[Usage]]] = []
    index = cloud(indexed, model, kept)

    index.upsert([named(f"r{n}", t) for n, t in enumerate(texts)])

    # Two calls (a full batch and the rest); every document linked by the model's keys
    assert [len(c) for c in model.calls] == [ENTITY_BATCH, 2]
    assert listing(index.links) == {"garden": ENTITY_BATCH + 2, "garden club": ENTITY_BATCH + 2}
    rows = [row for _, batch in kept for row in batch]
    assert {r.purpose for r in rows} == {"entities"}
    assert sum(r.input_tokens for r in rows) == 10 * len(texts)
    assert sum(r.output_tokens for r in rows) == 3 * 2

    # A replayed batch (a retried stream record) asks nothing again
    index.upsert([named(f"r{n}", t) for n, t in enumerate(texts)])
    assert len(model.calls) == 2


def test_a_model_that_keeps_failing_leaves_the_rules_keys_and_fails_nothing(
    indexed: tuple[SearchIndex, EntityLinks],
) -> None:
    text = "Caroline took a pottery class"
    model = Model({text: ["pottery class"]}, failures=ENTITY_ATTEMPTS)
    kept: list[tuple[str, list[Usage]]] = []
    index = cloud(indexed, model, kept)

    index.upsert([named("r1", text)])  # raises nothing: the stream batch is not failed

    assert listing(index.links) == {"caroline": 1}
    assert model.calls == [] and kept == []

    # A throttled call that succeeds within the tries is kept
    model.failures = ENTITY_ATTEMPTS - 1
    index.upsert([named("r1", text, version=2)])
    assert listing(index.links) == {"caroline": 1, "pottery class": 1}
