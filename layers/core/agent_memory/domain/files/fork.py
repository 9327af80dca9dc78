"""Fork copies an agent's file memory: every memory to the new agent at version 1, without
history."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..kernel.ids import new_id
from ..kernel.models import utcnow
from .models import FileVersion, FileWrite
from .paths import MEMORY_ROOT
from .plan import file_head
from .reads import all_files

if TYPE_CHECKING:
    from ..store import Store

# Writes one batch of an app's writes (with their search documents) for `target`.
WriteFiles = Callable[[str, str, list[FileWrite]], None]


def copy_all(
    store: Store, write: WriteFiles, tenant: str, source: str, target: str, actor: str
) -> int:
    """Fork: every memory copied to `target` at version 1, without history."""
    copied = 0
    # With their content: one Query a thousand memories, not a read for each.
    files = all_files(store, tenant, source, MEMORY_ROOT + "/", with_content=True)
    now = utcnow()
    writes = []
    for full in files:
        head = file_head(tenant, target, full.path, full.content, 1, now, actor)
        writes.append(
            FileWrite(
                path=full.path,
                head=head,
                expected_version=None,
                versions=[
                    FileVersion(
                        id=new_id("fv"),
                        agent_id=target,
                        path=full.path,
                        operation="create",
                        actor=actor,
                        version=1,
                        content=full.content,
                        content_sha256=head.content_sha256,
                        at=now,
                    )
                ],
                count_delta=1,
            )
        )
    for batch in _batches(writes):
        write(tenant, target, batch)
        copied += len(batch)
    return copied


def _batches(writes: list[FileWrite]) -> list[list[FileWrite]]:
    """Transaction-sized batches: at most 24 writes and about 1.5 MB of content (a DynamoDB
    transaction takes 100 actions and 4 MB, and each write stores its content twice)."""
    batches: list[list[FileWrite]] = [[]]
    size = 0
    for write in writes:
        cost = len(write.head.content.encode()) if write.head else 0
        if batches[-1] and (len(batches[-1]) >= 24 or size + cost > 1_500_000):
            batches.append([])
            size = 0
        batches[-1].append(write)
        size += cost
    return [b for b in batches if b]
