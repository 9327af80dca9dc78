"""One optimistic-retry loop for every write that reads, works out a change, then writes it on a
condition (a version, a sequence, an id not yet taken).

A conditional write that loses a race raises `PreconditionFailed`: the attempt is worked out
again from a fresh read. After `attempts` losses the caller's own error is raised (a 409 the
client can retry, or a domain error a background worker retries).

    turn = optimistic(
        lambda: self._begin_once(...),
        attempts=_BEGIN_ATTEMPTS,
        exhausted=lambda: Conflict("too many turns began at once", code="session_busy"),
    )

An attempt that must look at the lost race first (to learn that another writer already did the
work, or that the race is not worth another try) catches `PreconditionFailed` itself and either
returns, raises its own error, or raises `TryAgain` to ask for the next attempt.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import TypeVar

from .errors import PreconditionFailed

T = TypeVar("T")


class TryAgain(Exception):  # noqa: N818 - a signal, not an error a caller sees
    """Raised inside an attempt to ask for the next one (after it looked at why it lost)."""


def optimistic(
    attempt: Callable[[], T],
    *,
    attempts: int,
    exhausted: Callable[[], Exception],
    retry_on: tuple[type[Exception], ...] = (PreconditionFailed,),
    hold: Callable[[], AbstractContextManager[object]] = nullcontext,
) -> T:
    """`attempt()` until it returns, at most `attempts` times; then raise `exhausted()`.

    Only `retry_on` (a lost conditional write, by default) and `TryAgain` start another
    attempt; any other error propagates at once and nothing more is tried. `retry_on=()` leaves
    only `TryAgain`, for an attempt whose own lost races are not all worth another try. The
    caller's error is raised from the last lost race (the error `TryAgain` was raised from).
    Each attempt runs inside `hold()`: a store's `exclusive`, so that no writer of the same
    process changes what the attempt read before it writes (an attempt must then make no slow
    call, such as a model's).
    """
    if attempts < 1:
        raise ValueError("attempts must be at least 1")
    # The last lost race becomes the cause of the caller's error, so a log of it shows why.
    lost: BaseException | None = None
    for _ in range(attempts):
        try:
            with hold():
                return attempt()
        except TryAgain as again:
            lost = again.__cause__ or again.__context__
        except retry_on as exc:
            lost = exc
    raise exhausted() from lost
