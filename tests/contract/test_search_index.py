"""The SearchIndex port's contract: every test runs against EmbeddedIndex (SQLite FTS5 in the
store's file) and OpenSearchIndex on osmem-server (an in-memory OpenSearch-compatible engine
from PyPI, started once a run; conftest.py `search_index`).

Covered: writes, versions (an older version never overwrites a newer), deletes, every filter of
IndexFilter, tenant and agent isolation, limits (the port's paging: the first `limit` of the
ranking that pass the filters) and the lexical path. osmem-server has no k-NN, so `vector()` is
not run here: the k-NN request bodies are checked in tests/unit/test_opensearch_bodies.py, and
EmbeddedIndex's vector filter runs the filter table in test_record_filter_rules.py. What only one
adapter has (OpenSearch's mapping and copies, the embedded vector queue) stays in its own tests.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from agent_memory.domain.search.index import Hit, IndexDoc, IndexFilter, SearchIndex
from index_docs import T0, doc

pytestmark = pytest.mark.contract

AGENT = "teams/web"


def ids(hits: list[Hit]) -> list[str]:
    return [hit.id for hit in hits]


def found(
    index: SearchIndex,
    query: str,
    where: IndexFilter | None = None,
    tenant: str = "t1",
    agent: str = AGENT,
) -> set[str]:
    return set(ids(index.lexical(tenant, agent, query, where or IndexFilter(), 50)))


# -- the lexical path ---------------------------------------------------------------------------


def test_a_document_sharing_more_query_words_ranks_first(search_index: SearchIndex) -> None:
    search_index.upsert(
        [
            doc("one-word", "the release goes out on friday"),
            doc("three-words", "the api release to eu-west-1 goes out on friday"),
            doc("none", "lunch is at noon"),
        ]
    )

    hits = search_index.lexical("t1", AGENT, "api release eu-west-1", IndexFilter(), 10)

    assert ids(hits) == ["three-words", "one-word"]
    assert hits[0].score > hits[1].score > 0
    assert hits[0].created_at == T0


def test_each_hit_carries_its_created_at_and_session(search_index: SearchIndex) -> None:
    later = T0 + timedelta(days=3, microseconds=250)
    search_index.upsert(
        [
            doc("mine", "deploy", scope="session", session_id="ses_1", created_at=later),
            doc("agent", "deploy the api"),
        ]
    )

    hits = search_index.lexical("t1", AGENT, "deploy", IndexFilter(session_id="ses_1"), 5)

    assert {(h.id, h.created_at, h.session_id) for h in hits} == {
        ("mine", later, "ses_1"),
        ("agent", T0, None),
    }


def test_inflected_words_find_each_other(search_index: SearchIndex) -> None:
    search_index.upsert([doc("r1", "we deployed the service"), doc("r2", "lunch at noon")])

    assert found(search_index, "deploying services") == {"r1"}


def test_words_inside_host_names_and_regions_are_found(search_index: SearchIndex) -> None:
    search_index.upsert([doc("r1", "api.example.com lives in eu-west-1"), doc("r2", "lunch")])

    assert found(search_index, "api.example.com") == {"r1"}
    assert found(search_index, "eu-west-1") == {"r1"}
    assert found(search_index, "API.Example.COM") == {"r1"}


@pytest.mark.parametrize(
    "query",
    [
        "what's deployed?",
        '"unbalanced quote deployed',
        'say "deployed there"',
        "deployed AND rollback",
        "deployed OR NOT ( ) [ ] { } : ^ ~ * ? \\ /",
        "text:deployed",
    ],
)
def test_query_syntax_is_only_words(search_index: SearchIndex, query: str) -> None:
    # Neither engine's query language reaches the user: operators and quotes are words or
    # nothing, and the one real word still finds its document.
    search_index.upsert([doc("r1", "what's deployed there"), doc("r2", "lunch at noon")])

    assert found(search_index, query) == {"r1"}


@pytest.mark.parametrize("query", ["", "   ", "?!", "( ) [ ] :", "the", "what is it"])
def test_a_query_without_a_word_finds_nothing(search_index: SearchIndex, query: str) -> None:
    # Stopwords are not words a document is found by, in either adapter.
    search_index.upsert([doc("r1", "what is the plan? it is the plan")])

    assert search_index.lexical("t1", AGENT, query, IndexFilter(), 10) == []


def test_words_said_before_an_event_find_it_below_its_own_words(
    search_index: SearchIndex,
) -> None:
    search_index.upsert(
        [
            doc("asked", "turn 1, user: When do we ship the api?", kind="event"),
            doc("answer", "turn 1, assistant: On Tuesdays.", kind="event", context="ship the api"),
            doc("aside", "turn 2, user: Lunch?", kind="event", context="On Tuesdays."),
        ]
    )
    where = IndexFilter(kind="event", include_all_sessions=True)

    hits = search_index.lexical("t1", AGENT, "when do we ship", where, 10)

    assert ids(hits) == ["asked", "answer"]
    assert hits[0].score > hits[1].score > 0


def test_a_history_hit_tells_what_its_own_words_scored(search_index: SearchIndex) -> None:
    """Hit.own: the score of the event's own words, its context words not counted; the history
    search moves part of the difference to the message a reply answers (ranking.py)."""
    search_index.upsert(
        [
            doc("said", "user: We ship the api on Tuesdays", kind="event"),
            doc(
                "reply",
                "assistant: Noted, the api ships Tuesdays",
                kind="event",
                context="We ship the api on Tuesdays",
            ),
            doc("other", "user: Lunch at noon", kind="event", context="ship it"),
            doc("record", "we ship the api on tuesdays"),
        ]
    )
    where = IndexFilter(kind="event", include_all_sessions=True)

    hits = {h.id: h for h in search_index.lexical("t1", AGENT, "ship api tuesdays", where, 10)}

    assert hits["said"].own == pytest.approx(hits["said"].score)  # no context: all its own
    reply = hits["reply"]
    assert reply.own is not None and 0 < reply.own < reply.score  # its context added the rest
    assert hits["other"].own == 0  # found by what was said before it alone
    # Records have no context: their hits tell nothing of it.
    (record,) = search_index.lexical("t1", AGENT, "ship api tuesdays", IndexFilter(), 10)
    assert record.own is None


# -- limits: the port's paging ------------------------------------------------------------------


def test_limit_takes_the_best_first(search_index: SearchIndex) -> None:
    # One more "deploy" a document: each ranks above the one before it.
    search_index.upsert(
        [doc(f"r{n}", " ".join(["deploy"] * n + ["filler words here"] * 3)) for n in range(1, 6)]
    )

    every = ids(search_index.lexical("t1", AGENT, "deploy", IndexFilter(), 10))

    assert every == ["r5", "r4", "r3", "r2", "r1"]
    for limit in range(1, 6):
        assert (
            ids(search_index.lexical("t1", AGENT, "deploy", IndexFilter(), limit))
            == (every[:limit])
        )
    assert search_index.lexical("t1", AGENT, "deploy", IndexFilter(), 0) == []


def test_the_filters_apply_before_the_limit(search_index: SearchIndex) -> None:
    # Given many strong matches the filter refuses and a few weak ones it lets through
    refused = [doc(f"gone{n:02d}", "deploy deploy deploy", status="DELETED") for n in range(40)]
    kept = [doc(f"kept{n}", f"deploy and {n} other words to read") for n in range(3)]
    search_index.upsert(refused + kept)

    # Then a limit of three finds the three that pass, however far down the ranking they are
    hits = search_index.lexical("t1", AGENT, "deploy", IndexFilter(), 3)

    assert set(ids(hits)) == {"kept0", "kept1", "kept2"}


# -- filters ------------------------------------------------------------------------------------


def test_statuses_filter(search_index: SearchIndex) -> None:
    search_index.upsert(
        [
            doc("active", "deploy"),
            doc("superseded", "deploy", status="SUPERSEDED"),
            doc("deleted", "deploy", status="DELETED"),
        ]
    )

    assert found(search_index, "deploy") == {"active"}
    where = IndexFilter(statuses=frozenset({"SUPERSEDED", "DELETED"}))
    assert found(search_index, "deploy", where) == {"superseded", "deleted"}
    every = IndexFilter(statuses=frozenset())
    assert found(search_index, "deploy", every) == {"active", "superseded", "deleted"}


def test_record_kinds_filter(search_index: SearchIndex) -> None:
    search_index.upsert(
        [
            doc("fact", "deploy", record_kind="fact"),
            doc("event", "deploy", record_kind="event"),
            doc("guidance", "deploy", record_kind="guidance"),
        ]
    )

    where = IndexFilter(record_kinds=frozenset({"fact", "guidance"}))
    assert found(search_index, "deploy", where) == {"fact", "guidance"}
    assert found(search_index, "deploy", IndexFilter(record_kinds=frozenset({"other"}))) == set()


def test_labels_filter_needs_every_label_to_match_exactly(search_index: SearchIndex) -> None:
    search_index.upsert(
        [
            doc("both", "deploy", labels={"team": "web", "env": "prod=eu"}),
            doc("team-only", "deploy", labels={"team": "web"}),
            doc("other-team", "deploy", labels={"team": "web-ops", "env": "prod=eu"}),
            doc("none", "deploy"),
        ]
    )

    assert found(search_index, "deploy", IndexFilter(labels={"team": "web"})) == {
        "both",
        "team-only",
    }
    where = IndexFilter(labels={"team": "web", "env": "prod=eu"})
    assert found(search_index, "deploy", where) == {"both"}
    assert found(search_index, "deploy", IndexFilter(labels={"team": "we"})) == set()
    assert found(search_index, "deploy", IndexFilter(labels={"owner": "ops"})) == set()


def test_ids_filter(search_index: SearchIndex) -> None:
    search_index.upsert([doc("a", "deploy"), doc("b/c", "deploy"), doc("d", "deploy")])

    where = IndexFilter(ids=frozenset({"a", "b/c", "never-indexed"}))
    assert found(search_index, "deploy", where) == {"a", "b/c"}


def test_document_kinds_are_separate(search_index: SearchIndex) -> None:
    search_index.upsert(
        [
            doc("notes.md", "deploy", kind="file"),
            doc("r1", "deploy"),
            doc("evt_1", "deploy", kind="event", scope="session", session_id="s1"),
        ]
    )

    assert found(search_index, "deploy") == {"r1"}
    assert found(search_index, "deploy", IndexFilter(kind="file")) == {"notes.md"}
    events = IndexFilter(kind="event", include_agent=False, include_all_sessions=True)
    assert found(search_index, "deploy", events) == {"evt_1"}


def test_scope_and_session_rules(search_index: SearchIndex) -> None:
    search_index.upsert(
        [
            doc("agent", "deploy", scope="agent"),
            doc("mine", "deploy", scope="session", session_id="s1"),
            doc("other", "deploy", scope="session", session_id="s2"),
        ]
    )

    def scoped(**fields: Any) -> set[str]:
        return found(search_index, "deploy", IndexFilter(**fields))

    assert scoped() == {"agent"}
    assert scoped(session_id="s1") == {"agent", "mine"}
    assert scoped(session_id="s1", include_agent=False) == {"mine"}
    assert scoped(session_id="s9", include_agent=False) == set()
    assert scoped(include_all_sessions=True) == {"agent", "mine", "other"}
    assert scoped(include_all_sessions=True, include_agent=False) == {"mine", "other"}
    assert scoped(include_agent=False) == set()


def test_preview_live_any_only(search_index: SearchIndex) -> None:
    search_index.upsert([doc("live", "deploy"), doc("preview", "deploy", preview=True)])

    assert found(search_index, "deploy") == {"live"}
    assert found(search_index, "deploy", IndexFilter(preview="any")) == {"live", "preview"}
    assert found(search_index, "deploy", IndexFilter(preview="only")) == {"preview"}


def test_tenants_and_agents_are_isolated(search_index: SearchIndex) -> None:
    search_index.upsert(
        [
            doc("mine", "deploy"),
            doc("other-tenant", "deploy", tenant="t2"),
            doc("other-agent", "deploy", agent_id="teams/web/releases"),
            doc("prefix-agent", "deploy", agent_id="teams"),
        ]
    )

    assert found(search_index, "deploy") == {"mine"}
    assert found(search_index, "deploy", tenant="t2") == {"other-tenant"}
    assert found(search_index, "deploy", agent="teams/web/releases") == {"other-agent"}
    assert found(search_index, "deploy", agent="teams") == {"prefix-agent"}
    assert found(search_index, "deploy", tenant="t2", agent="teams/web/releases") == set()


def scores_unmoved_by(search_index: SearchIndex, others: list[IndexDoc]) -> None:
    """t1's scores for a query, before and after `others` are written: the same."""

    def scores() -> dict[str, float]:
        hits = search_index.lexical("t1", AGENT, "falcon standup", IndexFilter(), 10)
        return {hit.id: hit.score for hit in hits}

    search_index.upsert([doc("plan", "falcon migration plan"), doc("notes", "weekly standup")])
    before = scores()
    search_index.upsert(others)

    assert set(before) == {"plan", "notes"}
    assert scores() == pytest.approx(before)


def test_another_tenants_documents_never_move_a_tenants_scores(search_index: SearchIndex) -> None:
    """BM25's statistics (how many documents hold a word, their length) are the tenant's own:
    were they shared, a tenant could store a word and watch its score fall as others stored it."""
    scores_unmoved_by(
        search_index,
        [doc(f"theirs-{n}", f"falcon item {n} of a longer note", tenant="t2") for n in range(20)],
    )


def test_an_agents_documents_of_another_kind_never_move_its_scores(
    search_index: SearchIndex,
) -> None:
    """Each kind's statistics are its own: a long history does not set those its records are
    ranked by, nor a review's records those of its history."""
    scores_unmoved_by(
        search_index,
        [doc(f"said-{n}", f"falcon said {n} times in a message", kind="event") for n in range(20)],
    )


def test_the_same_id_under_two_tenants_is_two_documents(search_index: SearchIndex) -> None:
    search_index.upsert([doc("r1", "alpha"), doc("r1", "beta", tenant="t2", version=5)])

    assert found(search_index, "alpha") == {"r1"}
    assert found(search_index, "beta", tenant="t2") == {"r1"}
    assert found(search_index, "beta") == set()


# -- versions -----------------------------------------------------------------------------------


def test_a_newer_version_replaces_the_older(search_index: SearchIndex) -> None:
    search_index.upsert([doc("r1", "alpha", version=1)])
    search_index.upsert([doc("r1", "beta", version=2, status="SUPERSEDED")])

    assert found(search_index, "alpha", IndexFilter(statuses=frozenset())) == set()
    assert found(search_index, "beta") == set()
    assert found(search_index, "beta", IndexFilter(statuses=frozenset({"SUPERSEDED"}))) == {"r1"}


def test_an_older_version_never_overwrites_a_newer_one(search_index: SearchIndex) -> None:
    search_index.upsert([doc("r1", "beta", version=3)])
    search_index.upsert([doc("r1", "alpha", version=2, status="DELETED")])
    search_index.upsert([doc("r1", "alpha", version=1), doc("r1", "gamma", version=2)])

    assert found(search_index, "beta") == {"r1"}
    every = IndexFilter(statuses=frozenset())
    assert found(search_index, "alpha gamma", every) == set()


@pytest.mark.parametrize("order", ["newest_first", "newest_last"])
def test_the_newest_of_one_batch_wins(search_index: SearchIndex, order: str) -> None:
    batch = [doc("r1", "beta", version=2), doc("r1", "alpha", version=1)]
    search_index.upsert(batch if order == "newest_first" else batch[::-1])

    assert found(search_index, "beta") == {"r1"}
    assert found(search_index, "alpha") == set()


def test_the_same_version_written_again_takes_its_new_content(search_index: SearchIndex) -> None:
    search_index.upsert([doc("r1", "alpha", version=1)])
    search_index.upsert([doc("r1", "alpha", version=1)])
    assert found(search_index, "alpha") == {"r1"}

    search_index.upsert([doc("r1", "corrected", version=1)])

    assert found(search_index, "alpha") == set()
    assert found(search_index, "corrected") == {"r1"}


def test_a_deleted_document_can_start_again_at_version_one(search_index: SearchIndex) -> None:
    # A file memory deleted and created again starts its versions again.
    search_index.upsert([doc("notes.md", "alpha", kind="file", version=7)])
    search_index.delete("t1", AGENT, "file", ["notes.md"])

    search_index.upsert([doc("notes.md", "beta", kind="file", version=1)])

    assert found(search_index, "alpha beta", IndexFilter(kind="file")) == {"notes.md"}
    assert found(search_index, "alpha", IndexFilter(kind="file")) == set()


# -- deletes ------------------------------------------------------------------------------------


def test_delete_removes_only_the_named_documents(search_index: SearchIndex) -> None:
    search_index.upsert(
        [
            doc("a", "deploy"),
            doc("b/c", "deploy"),
            doc("keep", "deploy"),
            doc("a", "deploy", kind="file"),
            doc("a", "deploy", tenant="t2"),
            doc("a", "deploy", agent_id="teams/web/releases"),
        ]
    )

    search_index.delete("t1", AGENT, "record", ["a", "b/c", "never-indexed", "a"])
    search_index.delete("t1", AGENT, "record", [])

    assert found(search_index, "deploy") == {"keep"}
    assert found(search_index, "deploy", IndexFilter(kind="file")) == {"a"}
    assert found(search_index, "deploy", tenant="t2") == {"a"}
    assert found(search_index, "deploy", agent="teams/web/releases") == {"a"}


def test_delete_agent_removes_every_document_of_that_agent_only(
    search_index: SearchIndex,
) -> None:
    search_index.upsert([doc(f"r{i}", "deploy") for i in range(8)])
    search_index.upsert(
        [
            doc("f.md", "deploy", kind="file"),
            doc("evt", "deploy", kind="event", scope="session", session_id="s1"),
            doc("other", "deploy", agent_id="teams/web/releases"),
            doc("prefix", "deploy", agent_id="teams"),
            doc("r0", "deploy", tenant="t2"),
        ]
    )

    search_index.delete_agent("t1", AGENT)

    everything = IndexFilter(statuses=frozenset(), preview="any", include_all_sessions=True)
    for kind in ("record", "file", "event"):
        where = IndexFilter(kind=kind, preview="any", include_all_sessions=True)  # type: ignore[arg-type]
        assert found(search_index, "deploy", where) == set()
    assert found(search_index, "deploy", everything, agent="teams/web/releases") == {"other"}
    assert found(search_index, "deploy", agent="teams") == {"prefix"}
    assert found(search_index, "deploy", tenant="t2") == {"r0"}


def test_an_empty_index_finds_and_deletes_nothing(search_index: SearchIndex) -> None:
    assert search_index.lexical("t1", AGENT, "anything", IndexFilter(), 10) == []

    search_index.delete("t1", AGENT, "record", ["r1"])
    search_index.delete_agent("t1", AGENT)

    assert search_index.lexical("t1", AGENT, "anything", IndexFilter(), 10) == []


def test_an_events_key_document_lives_beside_its_parts(search_index: SearchIndex) -> None:
    # Fact keys (domain/history_keys): `<event>.k`, versioned by a review's time in µs, is
    # written, replaced and deleted on its own, whatever the index assumes of an event's ids.
    reviewed = int(T0.timestamp() * 1_000_000)
    event = {"kind": "event", "scope": "session", "session_id": "ses_1"}
    search_index.upsert(
        [
            doc("evt_1.1", "I adopted a greyhound named Pixel", **event),
            doc("evt_1.2", "", **event),
            doc("evt_1.k", "User has a pet dog", version=reviewed, **event),
        ]
    )
    where = IndexFilter(kind="event", session_id="ses_1")
    assert found(search_index, "pet dog", where) == {"evt_1.k"}
    assert found(search_index, "greyhound", where) == {"evt_1.1"}

    later = doc("evt_1.k", "User owns a greyhound", version=reviewed + 60_000_000, **event)
    search_index.upsert([later])
    search_index.upsert([doc("evt_1.k", "User has a pet dog", version=reviewed, **event)])
    assert found(search_index, "pet dog", where) == set()
    assert found(search_index, "greyhound", where) == {"evt_1.1", "evt_1.k"}

    search_index.delete("t1", AGENT, "event", ["evt_1.k"])
    assert found(search_index, "greyhound", where) == {"evt_1.1"}


def test_stored_lists_each_document_once_for_a_sweep(search_index: SearchIndex) -> None:
    """What `agent-memory reindex` sweeps (adapters/dynamodb/reindex.py): OpenSearch lists every
    document, of a tenant or an agent when asked; S3 Vectors an agent's only (its index is named
    by a digest it cannot read back); the embedded index none (rebuilt from its own database)."""
    from index_model import INDEX_MODEL

    from agent_memory.domain.search.index import StoredDoc

    meaning = {"vector": [1.0, 0.0, 0.0], "model_id": INDEX_MODEL}
    search_index.upsert(
        [
            doc("r1", "deploy", **meaning),
            doc("r1", "deploy again", version=2, **meaning),
            doc("r2", "deploy", **meaning),
            doc("/memories/a.md", "deploy", kind="file", **meaning),
            doc("evt.1", "deploy", kind="event", scope="session", session_id="s1", **meaning),
            doc("other", "deploy", agent_id="teams/web/releases", **meaning),
            doc("r1", "deploy", tenant="t2", **meaning),
        ]
    )
    search_index.delete("t1", AGENT, "record", ["r2"])
    mine = {
        StoredDoc("t1", AGENT, "record", "r1"),
        StoredDoc("t1", AGENT, "file", "/memories/a.md"),
        StoredDoc("t1", AGENT, "event", "evt.1", "s1"),
    }
    other = StoredDoc("t1", "teams/web/releases", "record", "other")

    listed = search_index.stored("t1", AGENT)
    if type(search_index).__name__ == "EmbeddedIndex":
        assert listed is None
        return
    assert listed is not None
    assert sorted(listed, key=str) == sorted(mine, key=str)  # each once: r1's two versions too
    assert list(search_index.stored("t2", "nobody") or []) == []
    if type(search_index).__name__ == "S3VectorsIndex":
        assert search_index.stored("t1", None) is None and search_index.stored(None, None) is None
        return
    assert set(search_index.stored("t1", None) or []) == mine | {other}
    every = set(search_index.stored(None, None) or [])
    assert every == mine | {other, StoredDoc("t2", AGENT, "record", "r1")}
