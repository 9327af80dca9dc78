"""`agent-memory reindex`: rebuild the embedded search index, re-embedding what another model
(or none) embedded. Run it after changing the embedding model; the server may keep running.

`repair_index` writes again the history of the turns a migration listed (events kept before ids
included the session); `serve` runs it as it starts."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from ..adapters.sqlite import SqliteStore
from ..adapters.sqlite.index_repairs import pending_repairs, repaired
from ..domain.files.models import FileWrite
from ..domain.history.keys import key_doc
from ..domain.history.models import names_by_id_alone
from ..domain.kernel.models import Turn, TurnStatus, utcnow
from ..domain.records.models import RecordQuery, RecordStatus
from ..services import Services

logger = logging.getLogger(__name__)
BATCH = 64


@dataclass
class Reindexed:
    agents: int = 0
    records: int = 0
    files: int = 0
    events: int = 0
    vectors: int = 0  # documents given a vector (queued by this run or before it)


def stale_count(store: SqliteStore, model_id: str | None) -> int:
    """Active documents whose vector another model made, or that have none (a deleted or
    superseded one is never found by meaning: its old vector does not count)."""
    row = (
        store.db.read()
        .execute(
            "SELECT count(*) FROM search_docs d WHERE status = 'ACTIVE'"
            " AND (model_id IS NOT ? OR vector IS NULL) AND NOT EXISTS (SELECT 1 FROM"
            " embed_queue q WHERE q.tenant = d.tenant AND q.agent_id = d.agent_id"
            " AND q.kind = d.kind AND q.doc_id = d.doc_id)",
            (model_id,),
        )
        .fetchone()
    )
    return int(row[0])


Progress = Callable[[Reindexed, int], None]


def reindex(
    services: Services, everything: bool = False, progress: Progress | None = None
) -> Reindexed:
    """Re-embed and re-index every agent's records, files and kept history events (all of
    them with `everything`, else only when some document is stale). `progress` is told what is
    done, and how many agents there are, after each batch."""
    store = services.store
    search = services.records._search  # noqa: SLF001 - the composition root's own search
    if not isinstance(store, SqliteStore) or store.index is None:
        raise SystemExit("reindex works on the embedded shape (SQLite store with its index)")
    model_id = search.embedder.model_id if search.embedder else None
    done = Reindexed()
    total = int(store.db.read().execute("SELECT count(*) FROM agents").fetchone()[0])

    def tick() -> None:
        if progress is not None:
            progress(done, total)

    repair_index(services)
    if everything or stale_count(store, model_id) > 0:
        _every_agent(services, store, done, tick)

    # What this run queued, and what a stopped server left queued, is embedded before it ends.
    def embedded(total: int) -> None:
        done.vectors = total
        tick()

    done.vectors = services.drain_vectors(after_batch=embedded)
    return done


def _every_agent(
    services: Services, store: SqliteStore, done: Reindexed, tick: Callable[[], None]
) -> None:
    tenants = [r[0] for r in store.db.read().execute("SELECT DISTINCT tenant FROM agents")]
    for tenant in tenants:
        after = None
        while True:
            agents = store.list_agents(tenant, 100, after)
            for agent in agents:
                _agent(services, store, tenant, agent.id, done, tick)
            if len(agents) < 100:
                break
            after = agents[-1].id


def _agent(
    services: Services,
    store: SqliteStore,
    tenant: str,
    agent_id: str,
    done: Reindexed,
    tick: Callable[[], None],
) -> None:
    search = services.records._search  # noqa: SLF001
    assert store.index is not None
    done.agents += 1
    everything = RecordQuery(
        statuses=frozenset(RecordStatus), preview="any", include_all_sessions=True
    )
    before = None
    while True:
        records = store.find_records(tenant, agent_id, everything, BATCH, before)
        if not records:
            break
        active = [r for r in records if r.status is RecordStatus.ACTIVE]
        docs = search.docs_for(active)
        docs += [search.doc_without_vector(r) for r in records if r not in active]
        store.index.upsert(docs)
        done.records += len(records)
        tick()
        before = records[-1].id
    after = None
    while True:
        files = store.list_files(tenant, agent_id, "/memories/", BATCH, after)
        if not files:
            break
        full = [store.get_file(tenant, agent_id, f.path) for f in files]
        writes = [
            FileWrite(path=f.path, head=f, expected_version=f.version, versions=[], count_delta=0)
            for f in full
            if f is not None
        ]
        indexed = search.file_docs(tenant, agent_id, writes)
        store.index.upsert([w.index for w in indexed if w.index is not None])
        done.files += len(writes)
        tick()
        after = files[-1].path
    sessions_after = None
    while True:
        sessions = store.list_sessions(tenant, agent_id, 100, sessions_after)
        for session in sessions:
            for turn in store.list_turns(tenant, agent_id, session.id):
                if turn.status is TurnStatus.COMMITTED:
                    done.events += _turn(services, store, turn)
            tick()
        if len(sessions) < 100:
            break
        sessions_after = sessions[-1].id
    tick()


def _turn(services: Services, store: SqliteStore, turn: Turn) -> int:
    """Write a committed turn's history documents again; how many there are."""
    assert store.index is not None
    where = (turn.tenant, turn.agent_id, turn.session_id)
    docs = services.history.docs_for_commit(turn)
    # The facts a review drew from its events (history_keys), at a version newer than the
    # review's own so they are written again.
    embed = services.records._search.embedder is not None  # noqa: SLF001
    facts = store.event_keys(*where, turn.id)
    docs += [key_doc(turn.tenant, turn.agent_id, k, utcnow(), embed) for k in facts]
    # An event kept before ids included the session is found under a name with its session
    # (history.models.index_id): what was indexed under its id alone is no event's any more.
    if stale := names_by_id_alone(d.id for d in docs):
        store.index.delete(turn.tenant, turn.agent_id, "event", stale)
    store.index.upsert(docs)
    return len(docs)


def repair_index(services: Services) -> int:
    """Write again the documents of the turns migration 25 listed (adapters/sqlite/
    index_repairs.py), each turn taken off the list once done, so a stopped run resumes where it
    stood; how many turns were repaired. A turn gone meanwhile is just taken off."""
    store = services.store
    if not isinstance(store, SqliteStore) or store.index is None:
        return 0
    count = 0
    while pending := pending_repairs(store.db, BATCH):
        for key in pending:
            turn = store.get_turn(*key)
            if turn is not None and turn.status is TurnStatus.COMMITTED:
                _turn(services, store, turn)
                count += 1
            repaired(store.db, key)
    if count:
        logger.info(
            "history of %d turns indexed again: events kept before ids included the session"
            " are each found in their own session",
            count,
        )
    return count
