"""The embedded server's start-up objects are frozen out of later full collections once the
embedding model has loaded (local/heap.py)."""

from __future__ import annotations

import gc
import threading

import pytest

from agent_memory.local import heap

pytestmark = pytest.mark.unit


@pytest.fixture(autouse=True)
def _thawed():
    yield
    gc.unfreeze()  # the rest of the test process collects as before


class _Cycle:
    def __init__(self) -> None:
        self.me = self


def test_settling_frees_start_ups_garbage_and_freezes_the_rest():
    # Given a cycle start-up left unreachable, and one still in use
    gc.unfreeze()
    kept = _Cycle()
    _Cycle()
    # When the heap settles
    frozen = heap.settle()
    # Then what was in use is frozen (a later full collection does not walk it), and the garbage
    # was collected first, not frozen for the life of the process
    assert frozen == gc.get_freeze_count() > 0
    assert sum(isinstance(o, _Cycle) for o in gc.get_objects()) == 0  # none left to walk
    assert kept.me is kept
    # ...and what is made afterwards is collected as before
    later = _Cycle()
    assert any(o is later for o in gc.get_objects())


def test_the_server_settles_only_once_start_up_is_over():
    ready = threading.Event()
    settled = threading.Event()
    real = heap.settle
    try:
        heap.settle = lambda: settled.set() or 0  # type: ignore[assignment]
        thread = heap.settle_when(ready)
        # While the model loads, nothing is frozen
        assert not settled.wait(0.2)
        # Once it has loaded, the heap settles
        ready.set()
        thread.join(5)
        assert settled.is_set()
    finally:
        heap.settle = real  # type: ignore[assignment]


def test_the_embedder_says_when_it_has_tried_to_load_its_model(tmp_path):
    from agent_memory.bootstrap import build_services
    from agent_memory.domain.search.embeddings import Embedder, Embedding
    from agent_memory.settings import Settings

    release = threading.Event()

    class SlowToLoad(Embedder):
        model_id, dimensions = "slow", 3

        def load(self) -> None:
            release.wait(5)

        def embed(self, texts, *, query=False) -> Embedding:
            return Embedding([[1.0, 0.0, 0.0] for _ in texts], "slow", len(texts))

    services = build_services(Settings(data_dir=tmp_path), embedder=SlowToLoad(), model=None)
    try:
        assert services.vectors is not None
        services.vectors.run_in_background()
        # While its model loads, start-up is not over
        assert not services.vectors.started.wait(0.2)
        # Once it has loaded, it is
        release.set()
        assert services.vectors.started.wait(5)
    finally:
        services.close()
