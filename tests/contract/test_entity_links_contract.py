"""The EntityLinks port's contract: every test runs against the embedded shape (EmbeddedIndex,
whose writes link in the store's SQLite transaction) and the cloud's (LinkedIndex over the S3
Vectors index, links in the DynamoDB table, under moto). Documents are written through the
index, as each shape writes them; the listing is read from the links."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from agent_memory.adapters.dynamodb.entity_links import DynamoEntityLinks
from agent_memory.adapters.sqlite import SqliteStore
from agent_memory.domain.search.entities import entities
from agent_memory.domain.search.index import IndexDoc, SearchIndex
from agent_memory.domain.search.links import EntityLinks, LinkedIndex
from index_docs import T0, doc

pytestmark = pytest.mark.contract

AGENT = "teams/web"
REGION = "us-east-1"


@pytest.fixture(params=["sqlite", "dynamodb"])
def shape(
    request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[tuple[SearchIndex, EntityLinks]]:
    if request.param == "sqlite":
        store = SqliteStore(tmp_path / "db.sqlite3")
        index = store.attach_index(None, None)
        yield index, index.links
        store.close()
        return
    inner = request.getfixturevalue("s3vectors_search_index")
    linked = LinkedIndex(inner, DynamoEntityLinks("agent-memory-s3v", REGION))
    yield linked, linked.links


def named(doc_id: str, text: str, **fields: object) -> IndexDoc:
    """A document whose entities are those its text names, as the services build them."""
    return doc(doc_id, text, entities=entities(text), **fields)


def listing(
    links: EntityLinks, prefix: str = "", agent: str = AGENT, tenant: str = "t1"
) -> dict[str, int]:
    return {e.key: e.count for e in links.entities(tenant, agent, prefix, 100, None, 10)}


def test_documents_are_listed_under_the_entities_they_mention(
    shape: tuple[SearchIndex, EntityLinks],
) -> None:
    index, links = shape
    # Given two records and a history event that name Caroline, one naming Melanie too
    index.upsert(
        [
            named("r1", "Caroline joined the LGBTQ support group", created_at=T0),
            named("r2", "Melanie paints with Caroline's kids", created_at=T0 + timedelta(days=1)),
            doc(
                "evt_1.1",
                "I went hiking",
                kind="event",
                scope="session",
                session_id="ses_1",
                entities=entities("I went hiking", speakers=["Melanie"]),
                created_at=T0 + timedelta(days=2),
            ),
        ]
    )

    # When the agent's entities are listed
    found = links.entities("t1", AGENT, "", 100, None, 10)

    # Then each has its count and its mentions, newest first, in key order
    assert [(e.key, e.count) for e in found] == [("caroline", 2), ("lgbtq", 1), ("melanie", 2)]
    assert [(m.kind, m.id) for m in found[2].mentions] == [("event", "evt_1.1"), ("record", "r2")]
    assert found[2].mentions[0].session_id == "ses_1"
    assert found[2].mentions[0].created_at == T0 + timedelta(days=2)
    assert [m.id for m in links.mentions("t1", AGENT, "caroline", "record", 1)] == ["r2"]
    assert links.mentions("t1", AGENT, "caroline", "event", 10) == []


def test_a_prefix_and_a_key_to_start_after_page_the_listing(
    shape: tuple[SearchIndex, EntityLinks],
) -> None:
    index, links = shape
    index.upsert([named("r1", "We met New York friends, then New and Newark people; also Paris")])

    assert list(listing(links, "new")) == ["new york", "new", "newark"]
    page = links.entities("t1", AGENT, "", 2, None, 1)
    assert [e.key for e in page] == ["new york", "new"]
    rest = links.entities("t1", AGENT, "", 2, page[-1].key, 1)
    assert [e.key for e in rest] == ["newark", "paris"]
    assert links.entities("t1", AGENT, "", 2, rest[-1].key, 1) == []
    assert listing(links, "zz") == {}


def test_a_new_version_replaces_the_links_and_an_older_one_changes_nothing(
    shape: tuple[SearchIndex, EntityLinks],
) -> None:
    index, links = shape
    index.upsert([named("r1", "Caroline and Oscar", version=2)])

    index.upsert([named("r1", "Melanie only", version=1)])
    assert listing(links) == {"caroline": 1, "oscar": 1}

    index.upsert([named("r1", "Melanie and Oscar", version=3)])
    assert listing(links) == {"melanie": 1, "oscar": 1}


def test_what_a_search_may_not_return_links_nothing(
    shape: tuple[SearchIndex, EntityLinks],
) -> None:
    index, links = shape
    index.upsert(
        [
            named("live", "Caroline"),
            named("gone", "Caroline", version=2),
            named("draft", "Caroline", preview=True),
        ]
    )
    # A record superseded later drops its links; a preview one never had them.
    index.upsert([named("gone", "Caroline", version=3, status="SUPERSEDED")])

    assert [m.id for m in links.mentions("t1", AGENT, "caroline", "record", 10)] == ["live"]


def test_deletes_remove_links_and_nothing_crosses_agents_or_tenants(
    shape: tuple[SearchIndex, EntityLinks],
) -> None:
    index, links = shape
    index.upsert(
        [
            named("r1", "Caroline"),
            named("r2", "Caroline and Melanie"),
            named("o1", "Caroline", agent_id="teams/other"),
            named("x1", "Caroline", tenant="t2"),
        ]
    )

    index.delete("t1", AGENT, "record", ["r2", "never-there"])
    assert listing(links) == {"caroline": 1}
    assert listing(links, agent="teams/other") == {"caroline": 1}
    assert listing(links, tenant="t2") == {"caroline": 1}

    index.delete_agent("t1", AGENT)
    assert listing(links) == {}
    assert listing(links, agent="teams/other") == {"caroline": 1}


def test_the_entities_of_documents_are_read_back_by_id(
    shape: tuple[SearchIndex, EntityLinks],
) -> None:
    index, links = shape
    index.upsert(
        [
            named("r1", "Caroline and Oscar"),
            named("r2", "nothing named here"),
            named("r3", "Melanie", status="SUPERSEDED"),
        ]
    )

    found = links.entities_of("t1", AGENT, "record", ["r1", "r2", "r3", "r1", "never-there"])

    assert found == {"r1": ("caroline", "oscar")}
    assert links.entities_of("t1", AGENT, "file", ["r1"]) == {}
    assert links.entities_of("t1", AGENT, "record", []) == {}
