"""The embedded server's limits: a token bucket per key, and a private data directory."""

import os
import stat

import pytest

from agent_memory.local.datadir import make_private
from agent_memory.local.limits import RateLimiter, retry_after

pytestmark = pytest.mark.unit


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_key_gets_its_burst_then_waits_for_the_refill():
    clock = Clock()
    limiter = RateLimiter(per_minute=60, burst=3, clock=clock)
    assert [limiter.take("a") for _ in range(3)] == [0.0, 0.0, 0.0]
    wait = limiter.take("a")
    assert wait == pytest.approx(1.0) and retry_after(wait) == "1"
    assert limiter.take("b") == 0.0  # another key has its own bucket
    assert limiter.peek("a") == pytest.approx(1.0)
    clock.now = 1.0
    assert limiter.peek("a") == 0.0 and limiter.take("a") == 0.0
    assert limiter.take("a") > 0
    clock.now = 100.0  # a long pause refills to the burst, never past it
    assert [limiter.take("a") for _ in range(4)].count(0.0) == 3
    assert RateLimiter(per_minute=0, burst=1).take("a") == 0.0  # 0: no limit


def test_the_data_directory_is_made_private_whatever_it_was(tmp_path):
    data = tmp_path / "data"
    (data / "sub").mkdir(parents=True)
    for name in ("agent-memory.sqlite3", "sub/x", "token"):
        (data / name).write_text("x")
        os.chmod(data / name, 0o644)
    os.chmod(data, 0o755)
    os.chmod(data / "sub", 0o755)
    umask = os.umask(0o022)
    try:
        make_private(data)
        assert stat.S_IMODE(data.stat().st_mode) == 0o700
        assert stat.S_IMODE((data / "sub").stat().st_mode) == 0o700
        for name in ("agent-memory.sqlite3", "sub/x", "token"):
            assert stat.S_IMODE((data / name).stat().st_mode) == 0o600, name
        (data / "made-after").write_text("x")  # as SQLite makes its -wal file
        assert stat.S_IMODE((data / "made-after").stat().st_mode) == 0o600
    finally:
        os.umask(umask)


def test_a_tenant_runs_its_share_at_once_queues_a_few_and_is_refused_past_them():
    import threading

    from agent_memory.local.fairness import TenantBusy, TenantGate

    # Given a gate of one running and one waiting request a tenant
    gate = TenantGate(running=1, queued=1, wait_seconds=5)
    release, entered = threading.Event(), []

    def hold(name: str) -> None:
        with gate.turn("acme"):
            entered.append(name)
            release.wait(5)

    # When acme has one request running and one waiting
    first = threading.Thread(target=hold, args=("first",))
    first.start()
    while not entered:
        threading.Event().wait(0.01)
    second = threading.Thread(target=hold, args=("second",))
    second.start()
    threading.Event().wait(0.1)
    # Then a third of acme's is refused, while another tenant runs at once
    with pytest.raises(TenantBusy), gate.turn("acme"):
        pass
    with gate.turn("globex"):
        pass
    # And the waiting one runs once the first is done
    release.set()
    first.join(5)
    second.join(5)
    assert entered == ["first", "second"]
