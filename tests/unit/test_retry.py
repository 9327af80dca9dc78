"""The one optimistic-retry loop: retries lost races only, and says so when it gives up."""

import pytest

from agent_memory.domain.kernel.errors import Conflict, InvalidRequest, PreconditionFailed
from agent_memory.domain.kernel.retry import TryAgain, optimistic


def _attempts(*outcomes):
    """An attempt that plays `outcomes` in turn: an exception is raised, anything else returned."""
    calls = []

    def attempt():
        outcome = outcomes[len(calls)]
        calls.append(outcome)
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    return attempt, calls


def _busy():
    return Conflict("too busy", code="busy")


def test_a_lost_race_is_worked_out_again_until_it_wins():
    attempt, calls = _attempts(PreconditionFailed("lost"), TryAgain(), "won")
    assert optimistic(attempt, attempts=3, exhausted=_busy) == "won"
    assert len(calls) == 3


def test_after_the_last_lost_race_the_callers_error_is_raised():
    attempt, calls = _attempts(*[PreconditionFailed("lost")] * 4)
    with pytest.raises(Conflict) as raised:
        optimistic(attempt, attempts=4, exhausted=_busy)
    assert raised.value.code == "busy"
    assert len(calls) == 4


def test_any_other_error_stops_at_once():
    attempt, calls = _attempts(InvalidRequest("bad", code="bad"), "never")
    with pytest.raises(InvalidRequest):
        optimistic(attempt, attempts=5, exhausted=_busy)
    assert len(calls) == 1


def test_retry_on_names_what_else_is_worth_another_try():
    attempt, calls = _attempts(KeyError("moved"), "won")
    assert optimistic(attempt, attempts=2, exhausted=_busy, retry_on=(KeyError,)) == "won"
    # ...and then a lost conditional write is not, unless named too.
    attempt, calls = _attempts(PreconditionFailed("lost"), "won")
    with pytest.raises(PreconditionFailed):
        optimistic(attempt, attempts=2, exhausted=_busy, retry_on=(KeyError,))


def test_zero_attempts_is_a_programming_error():
    with pytest.raises(ValueError):
        optimistic(lambda: "x", attempts=0, exhausted=_busy)


def test_the_callers_error_is_raised_from_the_last_lost_race():
    last = PreconditionFailed("lost the third time")
    attempt, _ = _attempts(PreconditionFailed("lost"), PreconditionFailed("again"), last)
    with pytest.raises(Conflict) as raised:
        optimistic(attempt, attempts=3, exhausted=_busy)
    assert raised.value.__cause__ is last


def test_with_retry_on_empty_only_try_again_starts_another_attempt():
    def attempt():
        try:
            raise PreconditionFailed("lost, and looked at")
        except PreconditionFailed as exc:
            raise TryAgain from exc

    with pytest.raises(Conflict) as raised:
        optimistic(attempt, attempts=2, exhausted=_busy, retry_on=())
    assert str(raised.value.__cause__) == "lost, and looked at"
    # ...while a lost race the attempt lets through is the caller's to see, at once.
    attempt, calls = _attempts(PreconditionFailed("not worth another try"), "never")
    with pytest.raises(PreconditionFailed):
        optimistic(attempt, attempts=3, exhausted=_busy, retry_on=())
    assert len(calls) == 1
