"""What a process must redo when it is resumed from a memory snapshot (Lambda SnapStart).

One snapshot is the starting state of many execution environments, each resumed later and
elsewhere: whatever the process made before the snapshot (random state, network clients with
their sockets and credentials, caches dated by a clock) would be the same in all of them, and
stale. Objects that hold such state register a callable here when they are made; the Lambda
adapter (agent_memory.adapters.snapstart) runs them all once after each restore. Outside a
snapshot nothing calls them, so registering costs one list append.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from types import MethodType
from typing import Any

# Bound methods are held weakly: a registered object that is dropped (a test's store, a
# request's cache) leaves the list on its own instead of living as long as the process.
_hooks: list[Callable[[], Callable[[], Any] | None]] = []
_lock = threading.Lock()


def on_restore(hook: Callable[[], Any]) -> None:
    """Run `hook` (no arguments) after each restore from a snapshot, in registration order."""
    ref: Callable[[], Callable[[], Any] | None]
    ref = weakref.WeakMethod(hook) if isinstance(hook, MethodType) else (lambda: hook)
    with _lock:
        _hooks.append(ref)


def run_restore_hooks() -> int:
    """Run every live hook once, in registration order; returns how many ran. A hook that
    raises stops the rest: the restore fails, and Lambda starts the environment afresh."""
    with _lock:
        _hooks[:] = [ref for ref in _hooks if ref() is not None]
        live = [hook for hook in (ref() for ref in _hooks) if hook is not None]
    for hook in live:
        hook()
    return len(live)
