"""Every model of the domain and the API is built on first use (domain/kernel/deferred.py), and every
one of them can be built: a schema pydantic cannot make fails here, not on a route's first call."""

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from pydantic import BaseModel, ConfigDict, ValidationError

import agent_memory.api.app
import agent_memory.bootstrap
import agent_memory.domain.extraction.job  # noqa: F401 - the extraction steps' models too
from agent_memory.domain.kernel.deferred import DeferredModel

pytestmark = pytest.mark.unit

OURS = ("agent_memory.domain", "agent_memory.api")


def models() -> list[type[BaseModel]]:
    found: list[type[BaseModel]] = []
    pending = [BaseModel]
    while pending:
        for sub in pending.pop().__subclasses__():
            if sub not in found:
                found.append(sub)
                pending.append(sub)
    return [m for m in found if m.__module__.startswith(OURS)]


def test_every_model_of_ours_defers_its_build():
    found = models()
    assert len(found) > 100  # the walk found the models, not an empty list
    eager = [
        f"{m.__module__}.{m.__qualname__}" for m in found if not m.model_config.get("defer_build")
    ]
    assert eager == []


def test_every_model_of_ours_builds():
    for model in models():
        model.model_rebuild()
        assert model.__pydantic_complete__, f"{model.__module__}.{model.__qualname__}"
        assert model.model_json_schema()  # what the OpenAPI document and tool specs read


def test_threads_that_first_use_a_deferred_model_at_once_each_validate_it_whole():
    # Made here, so no earlier test has built it: the threads race to build it.
    class Parent(DeferredModel):
        model_config = ConfigDict(extra="forbid")
        name: str

    class Child(Parent):
        count: int = 0

    start = threading.Barrier(16)

    def first_use(i: int) -> Child:
        start.wait()
        return Child.model_validate({"name": f"n{i}", "count": i})

    with ThreadPoolExecutor(16) as pool:
        made = list(pool.map(first_use, range(16)))

    assert [(c.name, c.count) for c in made] == [(f"n{i}", i) for i in range(16)]
    with pytest.raises(ValidationError):  # the child's own validator, extra="forbid" and all
        Child.model_validate({"name": "x", "other": 1})
