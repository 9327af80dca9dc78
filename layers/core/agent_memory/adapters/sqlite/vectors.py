"""The embedded shape's background embedder: one thread adding the vectors writes queued.

A write (a commit, an app's file write, a review's records) indexes its documents' words in its
own transaction and queues their vectors in the same SQLite file (`embed_queue`), so nothing a
request does waits for the model, and a restart resumes where the queue stands. This thread
takes the oldest queued documents a batch at a time (texts of several turns and agents in one
call to the model), stores their vectors, and records the embedding as usage of purpose
`embed` on the turn (or agent) that wrote each document. Until its vector is there a document
is found by words alone.
"""

from __future__ import annotations

import logging
import os
import threading
from collections import defaultdict
from collections.abc import Callable, Sequence

from ...domain.kernel.ids import new_id
from ...domain.kernel.models import utcnow
from ...domain.search.embeddings import Embedder, Embedding
from ...domain.usage.models import Usage
from ..background import BatchLoop
from .search import EmbeddedIndex, Queued
from .usage import SqliteUsage

logger = logging.getLogger(__name__)

BATCH = 32  # texts per call to the model (LocalEmbedder sorts each call's texts by length)


def _lower_priority() -> None:
    """Give this thread the lowest CPU priority (Linux schedules each thread on its own): on a
    small machine the model would otherwise take a core from the requests. It still gets all
    the CPU the requests leave, which is all of it when nothing else runs."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
    except (AttributeError, OSError):  # not Linux, or not allowed: run at the usual priority
        logger.info("background embedder runs at the usual priority")


class BackgroundEmbedder(BatchLoop):
    thread_name = "agent-memory-embed"

    def __init__(
        self,
        index: EmbeddedIndex,
        embedder: Embedder,
        usage: SqliteUsage,
        *,
        batch: int = BATCH,
        idle_seconds: float = 0.1,
        backoff_seconds: float = 5.0,
    ) -> None:
        self._index = index
        self._embedder = embedder
        self._usage = usage
        self._batch = batch
        super().__init__(idle_seconds=idle_seconds, backoff_seconds=backoff_seconds)
        # Set once the thread has tried to load the model (loaded or not): start-up is over.
        self.started = threading.Event()

    @property
    def backlog(self) -> int:
        """Documents still waiting for a vector."""
        return self._index.queued_count()

    def drain(self, after_batch: Callable[[int], None] | None = None) -> int:
        """Embed everything queued, in this thread, until the queue is empty; how many
        documents got a vector (`after_batch` is told the count so far after each batch). For
        the CLI (reindex), tests and benchmarks."""
        return self._drain(after_batch)

    def _step(self) -> tuple[int, bool]:
        """One batch: (documents given a vector, whether any were queued)."""
        queued = self._index.queued(self._batch)
        if not queued:
            return 0, False
        added = self._embed(queued)
        return added, True

    def _start_up(self) -> None:
        # The model loads here, at start, not in the first search that needs it (which waited
        # 0.4-0.7 s for it); loaded before this thread lowers its priority, so requests at start
        # wait on the lock the shortest time.
        self._load_model()
        self.started.set()
        _lower_priority()

    def _step_failed(self) -> None:
        logger.exception("background embedder failed a batch; trying again")

    def _load_model(self) -> None:
        try:
            self._embedder.load()
        except Exception:  # noqa: BLE001 - the first embed raises it again, where it is handled
            logger.exception("embedding model did not load at start; it is tried again when needed")

    def _embed(self, queued: list[Queued]) -> int:
        texts = [q.text for q in queued]
        try:
            embedding = self._embedder.embed(texts)
        except Exception:
            if len(queued) == 1:
                raise
            # One text the model fails on must not hold the queue: embed them one by one.
            return self._one_by_one(queued)
        return self._store(queued, texts, embedding)

    def _one_by_one(self, queued: list[Queued]) -> int:
        added, failed = 0, []
        for item in queued:
            try:
                embedding = self._embedder.embed([item.text])
            except Exception:  # noqa: BLE001 - judged below, with the others
                failed.append(item)
                continue
            added += self._store([item], [item.text], embedding)
        if failed and len(failed) == len(queued):
            raise RuntimeError("the embedding model failed on every text of a batch")
        for item in failed:
            # Found by words alone; `agent-memory reindex` tries it again.
            logger.warning(
                "a document could not be embedded; it is found by words only",
                extra={"agent_id": item.agent_id, "kind": item.kind, "doc_id": item.doc_id},
            )
        self._index.unqueue(failed)
        return added

    def _store(self, queued: Sequence[Queued], texts: list[str], embedding: Embedding) -> int:
        added = self._index.add_vectors(queued, embedding.vectors, embedding.model_id)
        kept = {q.qseq for q in added}
        billed: dict[tuple[str, str, str | None, str | None], int] = defaultdict(int)
        for item, tokens in zip(queued, embedding.tokens_of(texts), strict=True):
            if item.qseq in kept:
                billed[(item.tenant, item.agent_id, item.session_id, item.turn_id)] += tokens
        now = utcnow()
        by_agent: dict[tuple[str, str], list[Usage]] = defaultdict(list)
        for (tenant, agent_id, session_id, turn_id), tokens in billed.items():
            by_agent[(tenant, agent_id)].append(
                Usage(
                    id=new_id("use"),
                    agent_id=agent_id,
                    session_id=session_id,
                    turn_id=turn_id,
                    purpose="embed",
                    model_id=embedding.model_id,
                    input_tokens=tokens,
                    at=now,
                )
            )
        for (tenant, agent_id), rows in by_agent.items():
            try:
                self._usage.add_usage(tenant, agent_id, rows)
            except Exception:  # noqa: BLE001 - the vectors are stored; usage is bookkeeping
                logger.exception("embedding usage not recorded", extra={"agent_id": agent_id})
        return len(added)
