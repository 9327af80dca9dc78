"""Lambda SnapStart's runtime hooks: what each execution environment resumed from the function
version's snapshot must make its own (docs/cold-start.md).

Before the snapshot: import what a first request would (boto3, opensearch-py) and compile the
regular expressions left for first use, so environments resumed from it never pay for either. After each restore: new random state, the id
generator started afresh, and every client and clock-dated cache registered with
agent_memory.domain.kernel.restore dropped, so it is rebuilt with this environment's sockets
and credentials. The hooks come from snapshot_restore_py, which the Lambda Python runtimes
carry; where it is missing (a laptop, the tests) nothing is registered.
"""

from __future__ import annotations

import importlib
import logging
import os
import random

from ..domain.kernel.ids import forget_last_id
from ..domain.kernel.patterns import compile_all
from ..domain.kernel.restore import run_restore_hooks

logger = logging.getLogger(__name__)

# What a first request imports lazily: loaded before the snapshot, they are in it.
PRIMED = ("boto3", "botocore.config", "opensearchpy")

_registered = False


def before_snapshot() -> None:
    for name in PRIMED:
        try:
            importlib.import_module(name)
        except ImportError:  # a layer without the OpenSearch client (s3-vectors search)
            continue
    # The regular expressions an import leaves uncompiled (kernel/patterns.py): compiled in the
    # snapshot, no restored environment compiles them on its first request.
    compile_all()


def after_restore() -> None:
    # random's Mersenne Twister state is in the snapshot: every restored environment would draw
    # the same numbers (uuid4, secrets and ids read os.urandom, which the restore reseeds).
    random.seed(os.urandom(32))
    forget_last_id()
    hooks = run_restore_hooks()
    logger.info("resumed from a snapshot", extra={"restore_hooks": hooks})


def register_snapstart_hooks() -> bool:
    """Register the hooks with the Lambda runtime, once; False where SnapStart is not there."""
    global _registered
    if _registered:
        return True
    try:
        from snapshot_restore_py import (  # type: ignore[import-not-found]
            register_after_restore,
            register_before_snapshot,
        )
    except ImportError:
        return False
    register_before_snapshot(before_snapshot)
    register_after_restore(after_restore)
    _registered = True
    return True
