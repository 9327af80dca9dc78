"""One description of each API call, run by either client.

A namespace method (`client.agents.get`, ...) builds a `Call`: the request, whether it is safe to
send twice, and how to read its answer. The sync client runs it and returns the value; the
async client runs it and returns a coroutine. A call made of several requests (the memory
compare-and-swap helper) is a generator of `Call`s that the client drives (`Runner.drive`), so
its logic is written once for both clients."""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, Protocol, TypeVar

from pydantic import ValidationError

from .errors import ApiError, UnexpectedResponse
from .models import Page
from .transport import IDEMPOTENT_METHODS

T = TypeVar("T")
# A multi-request operation: yields calls, is sent their answers (or thrown their errors).
Steps = Generator["Call[Any]", Any, T]


def _raw(value: Any) -> Any:
    return value


@dataclass(frozen=True)
class Call(Generic[T]):
    method: str
    path: str
    parse: Callable[[Any], T] = field(default=_raw)
    body: Any = None
    query: dict[str, Any] | None = None
    # Whether the server may apply it twice with the effect of once (None: by the method); see
    # transport's docstring for which calls are and why.
    safe: bool | None = None
    lines: bool = False
    # An error answer that still means success (a PUT retried after it had applied, ...).
    recover: Callable[[ApiError], T] | None = None

    @property
    def retry_safe(self) -> bool:
        return self.safe if self.safe is not None else self.method in IDEMPOTENT_METHODS

    def read(self, raw: Any) -> T:
        """The call's value from the JSON it answered; an answer of another shape (a pydantic
        ValidationError, a missing key) is an `UnexpectedResponse`, never the parser's error."""
        try:
            return self.parse(raw)
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            problem = _problem(exc)
            raise UnexpectedResponse(None, f"{self.method} {self.path}", problem) from exc


class Runner(Protocol):
    """What a namespace needs from its client: the sync client returns values and iterators,
    the async one coroutines and async iterators."""

    def run(self, call: Call[T]) -> Any: ...

    def drive(self, steps: Steps[T]) -> Any: ...

    def pages(self, first: Callable[[str | None], Call[Page[T]]]) -> Any: ...


class Area:
    """A namespace of the client (`client.agents`, `client.turns`, ...)."""

    def __init__(self, runner: Runner) -> None:
        self._runner = runner

    # Typed as the sync client answers; the async client's runner gives awaitables instead.
    def _run(self, call: Call[T]) -> T:
        return self._runner.run(call)  # type: ignore[no-any-return]

    def _drive(self, steps: Steps[T]) -> T:
        return self._runner.drive(steps)  # type: ignore[no-any-return]

    def _pages(self, first: Callable[[str | None], Call[Page[T]]]) -> Iterator[T]:
        return self._runner.pages(first)  # type: ignore[no-any-return]


def _problem(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        found = exc.errors(include_url=False)
        shown = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or 'body'}: {e['msg']}" for e in found[:3]
        )
        return f"not a {exc.title} ({shown})"
    if isinstance(exc, KeyError):
        return f"no {exc} in it"
    return f"{type(exc).__name__}: {exc}"


def params(**given: Any) -> dict[str, Any]:
    """The query string's parameters, those given (None is left out; a datetime as ISO 8601,
    which needs its time zone: `asOf`)."""
    for key, value in given.items():
        if isinstance(value, datetime):
            if value.tzinfo is None:
                raise ValueError(f"{key} needs a time zone, such as datetime.now(UTC)")
            given[key] = value.isoformat().replace("+00:00", "Z")
    return {k: v for k, v in given.items() if v is not None}


def page_items(call: Call[Any]) -> Call[list[Any]]:
    """The same call, answering its page's items."""
    parse = call.parse
    return Call(call.method, call.path, lambda body: parse(body).items, query=call.query)
