"""The embedded shape's entity worker: one background thread asking the entity model
(domain/search/entity_model.py) for the keys of the texts writes queued (entity_queue.py), as the
background embedder (vectors.py) adds the vectors they queued.

It takes the oldest queued documents a batch at a time (ENTITY_BATCH texts of any turns and
agents in one call), links the model's keys beside the rules' keys in one transaction that takes
them off the queue (an entry replaced meanwhile by a newer version, or removed with its document,
is skipped: the answer is for a text the document no longer has), and records the call as usage
of purpose `entities`. A call that fails leaves the queue as it was and the rules' keys in place;
the batch is tried again after a backoff, one text at a time, so a text the model always fails on
is dropped (logged) rather than holding the queue.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from datetime import datetime
from typing import NamedTuple

from ...domain.search.entity_model import (
    ENTITY_BATCH,
    EntityAnswer,
    EntityModel,
    EntityModelFailed,
    usage_of,
)
from ...domain.search.index import IndexDoc
from ...domain.usage.models import Usage
from ..background import BatchLoop
from .database import Database
from .entity_links import SqliteEntityLinks
from .usage import SqliteUsage

logger = logging.getLogger(__name__)


class QueuedText(NamedTuple):
    """A document waiting for the model: its text, the text's hash, and whom it is billed to."""

    qseq: int
    tenant: str
    agent_id: str
    kind: str
    doc_id: str
    version: int
    text_sha: str
    text: str
    created_at: str
    session_id: str | None
    turn_id: str | None

    def doc(self) -> IndexDoc:
        return IndexDoc(
            tenant=self.tenant,
            agent_id=self.agent_id,
            kind=self.kind,  # type: ignore[arg-type]
            id=self.doc_id,
            version=self.version,
            text=self.text,
            created_at=datetime.fromisoformat(self.created_at),
            session_id=self.session_id,
        )


class EntityWorker(BatchLoop):
    thread_name = "agent-memory-entities"

    def __init__(
        self,
        db: Database,
        model: EntityModel,
        usage: SqliteUsage,
        *,
        batch: int = ENTITY_BATCH,
        idle_seconds: float = 0.2,
        backoff_seconds: float = 5.0,
    ) -> None:
        self._db = db
        self._model = model
        self._usage = usage
        self._batch = min(batch, ENTITY_BATCH)
        super().__init__(idle_seconds=idle_seconds, backoff_seconds=backoff_seconds)

    @property
    def backlog(self) -> int:
        """Documents whose text the model has not read yet."""
        return int(self._db.read().execute("SELECT count(*) FROM entity_queue").fetchone()[0])

    def drain(self) -> int:
        """Ask the model for everything queued, in this thread; how many documents got its
        keys. Raises EntityModelFailed when the model fails a whole batch (the queue stays)."""
        return self._drain()

    def _step(self) -> tuple[int, bool]:
        """One batch: (documents given the model's keys, whether any were queued)."""
        queued = self._queued()
        if not queued:
            return 0, False
        try:
            return self._answer(queued, self._model.extract([q.text for q in queued])), True
        except EntityModelFailed:
            if len(queued) == 1:
                raise
        return self._one_by_one(queued), True

    def _step_failed(self) -> None:
        logger.warning(
            "entity model failed a batch; the rules' keys stand, trying again",
            exc_info=True,
        )

    def _queued(self) -> list[QueuedText]:
        rows = (
            self._db.read()
            .execute(
                "SELECT qseq, tenant, agent_id, kind, doc_id, version, text_sha, text, created_at,"
                " session_id, turn_id FROM entity_queue ORDER BY qseq LIMIT ?",
                (self._batch,),
            )
            .fetchall()
        )
        return [QueuedText(*row) for row in rows]

    def _one_by_one(self, queued: list[QueuedText]) -> int:
        answered, failed = 0, []
        for item in queued:
            try:
                answer = self._model.extract([item.text])
            except EntityModelFailed:
                failed.append(item)
                continue
            answered += self._answer([item], answer)
        if len(failed) == len(queued):
            # Every text failed alone too: the model is down or throttled, not one text bad.
            raise EntityModelFailed("the entity model failed on every text of a batch")
        for item in failed:
            logger.warning(
                "the entity model failed on a document; it keeps the rules' keys",
                extra={"agent_id": item.agent_id, "kind": item.kind, "doc_id": item.doc_id},
            )
        with self._db.write() as conn:
            conn.executemany("DELETE FROM entity_queue WHERE qseq = ?", [(i.qseq,) for i in failed])
        return answered

    def _answer(self, queued: list[QueuedText], answer: EntityAnswer) -> int:
        """Link the answer's keys, each document off the queue in the same transaction."""
        linked = 0
        with self._db.write() as conn:
            for item, keys in zip(queued, answer.keys, strict=True):
                taken = conn.execute(
                    "DELETE FROM entity_queue WHERE qseq = ? AND text_sha = ?",
                    (item.qseq, item.text_sha),
                ).rowcount
                if taken and SqliteEntityLinks.link_model_in(conn, item.doc(), item.text_sha, keys):
                    linked += 1
        self._bill(queued, answer)
        return linked

    def _bill(self, queued: list[QueuedText], answer: EntityAnswer) -> None:
        # The call was made whatever became of its answer: every text read is billed.
        rows = usage_of(answer, [(q.agent_id, q.session_id, q.turn_id) for q in queued])
        by_agent: dict[tuple[str, str], list[Usage]] = defaultdict(list)
        for item, row in zip(queued, rows, strict=True):
            by_agent[(item.tenant, item.agent_id)].append(row)
        for (tenant, agent_id), kept in by_agent.items():
            try:
                self._usage.add_usage(tenant, agent_id, kept)
            except Exception:  # noqa: BLE001 - the keys are linked; usage is bookkeeping
                logger.exception("entity model usage not recorded", extra={"agent_id": agent_id})
