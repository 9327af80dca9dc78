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


def _holding(gate, tenant: str, entered: list[str], release):
    import threading

    def hold(name: str) -> None:
        with gate.turn(tenant):
            entered.append(name)
            release.wait(5)

    def start(name: str) -> threading.Thread:
        thread = threading.Thread(target=hold, args=(name,))
        thread.start()
        return thread

    return start


def _until(condition) -> None:
    import time

    deadline = time.monotonic() + 5
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.01)


def test_a_tenant_alone_is_not_held_back():
    import threading

    from agent_memory.local.fairness import TenantGate

    # Given a gate of one running request a tenant, and acme the only tenant
    gate = TenantGate(running=1, queued=1, wait_seconds=5)
    release, entered = threading.Event(), []
    start = _holding(gate, "acme", entered, release)
    # When acme sends three requests at once, then all three run at once (none waits, none is
    # refused): a laptop's one tenant keeps every worker
    threads = [start(n) for n in ("a", "b", "c")]
    _until(lambda: len(entered) == 3)
    assert sorted(entered) == ["a", "b", "c"]
    release.set()
    for thread in threads:
        thread.join(5)


def test_beside_another_tenant_a_tenant_runs_its_share_queues_a_few_and_is_refused_past_them():
    import threading

    from agent_memory.local.fairness import TenantBusy, TenantGate

    # Given a gate of one running and one waiting request a tenant, and globex with a request
    # in the server
    gate = TenantGate(running=1, queued=1, wait_seconds=5)
    release, entered = threading.Event(), []
    other = _holding(gate, "globex", entered, release)("globex")
    _until(lambda: entered == ["globex"])
    start = _holding(gate, "acme", entered, release)
    # When acme has one request running and one waiting
    first = start("first")
    _until(lambda: "first" in entered)
    second = start("second")
    threading.Event().wait(0.1)
    assert "second" not in entered  # it waits its turn
    # Then a third of acme's is refused, while a third tenant's request runs at once
    with pytest.raises(TenantBusy), gate.turn("acme"):
        pass
    with gate.turn("initech"):
        pass
    # And the waiting one runs once the first is done
    release.set()
    for thread in (first, second, other):
        thread.join(5)
    assert entered == ["globex", "first", "second"]


def test_a_request_that_waits_past_its_time_is_refused_and_leaves_no_trace():
    import threading

    from agent_memory.local.fairness import TenantBusy, TenantGate

    # Given acme running its one request beside globex's, and a wait of 0.2 s
    gate = TenantGate(running=1, queued=2, wait_seconds=0.2)
    release, entered = threading.Event(), []
    threads = [_holding(gate, t, entered, release)(t) for t in ("globex", "acme")]
    _until(lambda: len(entered) == 2)
    # When acme's second request waits longer than that, then it is refused
    with pytest.raises(TenantBusy), gate.turn("acme"):
        pass
    release.set()
    for thread in threads:
        thread.join(5)


def test_the_share_holds_a_grace_after_the_other_tenants_last_request():
    import threading
    import time

    from agent_memory.local.fairness import TenantBusy, TenantGate

    # Given a clock the test can move on, and globex's one request just ended
    ahead = [0.0]
    gate = TenantGate(
        running=1,
        queued=1,
        wait_seconds=0.2,
        grace_seconds=2.0,
        clock=lambda: time.monotonic() + ahead[0],
    )
    with gate.turn("globex"):
        pass
    # When acme, within the grace, runs one request and asks for a second
    # Then the second waits its turn (globex, searching one request at a time, is still about)
    # and, nothing ending meanwhile, is refused after its wait
    waited = threading.Event()

    def second() -> None:
        try:
            with gate.turn("acme"):
                pass
        except TenantBusy:
            waited.set()

    with gate.turn("acme"):
        thread = threading.Thread(target=second)
        thread.start()
        thread.join(5)
    assert waited.is_set()
    # And once the grace has passed with globex quiet, acme alone runs two at once again
    ahead[0] += 2.5
    with gate.turn("acme"), gate.turn("acme"):
        pass
