"""Entity hops (domain/search/hops.py): a history query's entities pull in the events that
mention them, and a bounded second hop through the entities those share, over the entity links
of a real embedded index."""

from datetime import UTC, datetime, timedelta

import pytest

from agent_memory.adapters.sqlite import SqliteStore
from agent_memory.domain.search.entities import entities
from agent_memory.domain.search.hops import HOP_FANOUT, entity_hops
from agent_memory.domain.search.index import IndexDoc
from agent_memory.domain.search.ranking import Ranked

pytestmark = pytest.mark.integration

T0 = datetime(2025, 1, 1, tzinfo=UTC)
AGENT = "friends/assistant"


@pytest.fixture
def index(tmp_path):
    store = SqliteStore(tmp_path / "db.sqlite3")
    yield store.attach_index(None, None)
    store.close()


def event(n: int, text: str) -> IndexDoc:
    return IndexDoc(
        tenant="t1",
        agent_id=AGENT,
        kind="event",
        id=f"evt_{n}.1",
        version=1,
        text=text,
        created_at=T0 + timedelta(minutes=n),
        scope="session",
        session_id="s1",
        entities=entities(text),
    )


def hop(index, ranked, query):
    return entity_hops(ranked, query, index.links, "t1", AGENT)


def test_a_query_without_entities_keeps_the_ranking(index):
    index.upsert([event(1, "Caroline went hiking")])
    ranked = [Ranked("evt_9.1", 0.8), Ranked("evt_8.1", 0.5)]

    assert hop(index, ranked, "what did she enjoy doing?") == ranked


def test_the_first_hop_raises_and_pulls_in_what_mentions_the_querys_entities(index):
    # Given events naming Oscar, one ranked by words, one not found by them at all
    index.upsert(
        [
            event(1, "Oscar the puppy chewed my shoes"),
            event(2, "We took Oscar to the vet"),
            event(3, "lunch was great"),
        ]
    )
    ranked = [Ranked("evt_3.1", 0.9), Ranked("evt_1.1", 0.85), Ranked("evt_7.1", 0.8)]

    # When the query names Oscar
    out = hop(index, ranked, "How old is Oscar?")

    # Then the ranked event naming him rises above those that do not, and the unranked one
    # comes in below the best score
    ids = [r.id for r in out]
    assert ids[0] == "evt_1.1"
    assert "evt_2.1" in ids and ids.index("evt_2.1") > 0
    pulled = next(r for r in out if r.id == "evt_2.1")
    assert pulled.session_id == "s1" and pulled.created_at == T0 + timedelta(minutes=2)
    assert pulled.score < out[0].score


def test_the_second_hop_follows_a_shared_entity_below_the_first(index):
    # Given two events naming Caroline and Sweden, and a third naming only Sweden
    index.upsert(
        [
            event(1, "Caroline moved from Sweden"),
            event(2, "Caroline misses Sweden"),
            event(3, "Sweden has long winters"),
            event(4, "Melanie paints"),
        ]
    )
    ranked = [Ranked("evt_4.1", 1.0)]

    out = hop(index, ranked, "Where is Caroline from?")

    score = {r.id: r.score for r in out}
    # Caroline's events (first hop) above the Sweden-only one (second hop), all below the top
    assert score["evt_1.1"] > score["evt_3.1"] > 0
    assert score["evt_2.1"] > score["evt_3.1"]
    assert max(score, key=score.get) == "evt_4.1"


def test_an_entity_everything_mentions_picks_nothing_out(index):
    index.upsert([event(n, f"Caroline said thing {n}") for n in range(HOP_FANOUT + 1)])
    ranked = [Ranked("evt_0.1", 0.5)]

    assert hop(index, ranked, "What did Caroline say?") == ranked


A = "/v1/agents/friends/assistant"
QUERY = "what was the weather like for Oscar today"


def converse(api):
    """A conversation where one message names the dog, and another the day's weather."""
    api.ok("PUT", A, {"harness": {"history": {"index": "messages"}}}, expect=201)
    sid = api.ok("POST", f"{A}/-/sessions", {}, expect=201)["id"]
    for text in ["Oscar is a golden retriever", "the weather was lovely today", "new couch"]:
        turn = api.ok("POST", f"{A}/-/sessions/{sid}/turns", {}, expect=201)["id"]
        path = f"{A}/-/sessions/{sid}/turns/{turn}"
        api.ok("POST", f"{path}/events", {"events": [{"role": "user", "text": text}]})
        api.ok("POST", f"{path}/commit")


def oscar_at(api):
    """Where the event naming Oscar ranks for QUERY (0: first)."""
    found = api.ok("GET", f"{A}/-/history", query=QUERY, limit=3)["events"]
    return [e["text"].endswith("Oscar is a golden retriever") for e in found].index(True)


def test_the_manifest_flag_turns_hops_on_and_leaves_the_default_ranking_alone(api, embedded):
    # Given a conversation searched with entity links off (the default): words and meaning
    # rank the event naming Oscar last
    converse(api)
    assert api.ok("GET", A)["manifest"]["harness"]["history"]["entity_links"] is False
    assert oscar_at(api) == 2

    # When the agent turns them on, then the event naming the query's entity rises
    on = {"index": "messages", "entity_links": True}
    api.ok("PUT", A, {"harness": {"history": on}})
    assert oscar_at(api) == 1

    # And a flag that is not a boolean is a 400 that changes nothing
    status, _ = api.call("PUT", A, {"harness": {"history": {"entity_links": "yes"}}})
    assert status == 400
    assert api.ok("GET", A)["manifest"]["harness"]["history"]["entity_links"] is True
