"""File memory and session indexes on DynamoDB (a mixin of DynamoStore).

Semantics mirror SqliteFiles exactly; the layout is in keys.py. A file write is one
TransactWriteItems: a live-agent check, each head put or deleted under its expected-version
condition, each version put under attribute_not_exists, and the agent's memory count moved by
what the heads do (+1 a create, -1 a delete). While a write creates a memory, the count's
condition keeps it within max_files, so concurrent creates can never pass the limit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import islice, takewhile

from pynamodb.connection import Connection
from pynamodb.expressions.condition import Condition

from ...domain.files.models import (
    FileMemory,
    FileVersion,
    FileWrite,
    PreviewFile,
    TenantLimits,
)
from ...domain.kernel.errors import LimitExceeded, PreconditionFailed
from . import keys
from .file_items import FILE_SUMMARY
from .items import Items
from .records import AGENT, live_agent
from .transactions import ConditionsFailed, Transaction, get_item, storage_errors

COUNT = "memory count"
SESSION = "session"
# Items read per Query page while looking for one path's versions among the agent's.
_MIN_PAGE, _MAX_PAGE = 100, 1000


@dataclass(frozen=True)
class FileLimit:
    """The count a transaction of file writes moves, and the condition that keeps it in bounds."""

    max_files: int
    delta: int
    creates: bool


class DynamoFiles:
    _items: Items
    connection: Connection

    # -- reads -----------------------------------------------------------------------------------

    def get_file(self, tenant: str, agent_id: str, path: str) -> FileMemory | None:
        item = get_item(self._items.file, keys.files_pk(tenant, agent_id), keys.file_sk(path))
        return item.to_file() if item else None

    def list_files(
        self,
        tenant: str,
        agent_id: str,
        prefix: str,
        limit: int,
        after: str | None,
        *,
        with_content: bool = False,
    ) -> list[FileMemory]:
        if limit <= 0:
            return []
        model = self._items.file
        # A long path's key is cut (keys.file_sk): the cut start may hold other paths too.
        start = keys.file_sk_prefix(prefix)
        # Every path with the prefix sorts at or after the prefix itself, so an `after` below it
        # bounds nothing; otherwise start past it and stop at the first path without the prefix.
        bound: Condition = (
            model.sk > keys.file_sk(after)
            if after and after >= prefix
            else model.sk.startswith(start)
        )
        with storage_errors():
            results = model.query(
                keys.files_pk(tenant, agent_id),
                bound,
                consistent_read=True,
                # A list: pynamodb would take a tuple for one attribute's name.
                attributes_to_get=None if with_content else list(FILE_SUMMARY),
                page_size=limit,
            )
            found = takewhile(lambda item: item.sk.startswith(start), results)
            files = (item.to_file() for item in found)
            return list(islice((f for f in files if f.path.startswith(prefix)), limit))

    def file_versions(
        self, tenant: str, agent_id: str, path: str | None, limit: int, before: str | None
    ) -> list[FileVersion]:
        if limit <= 0:
            return []
        model = self._items.file_version
        bound: Condition = (
            model.sk < keys.file_version_sk(before)
            if before
            else model.sk.startswith(keys.FILE_VERSION)
        )
        # A rename is one version, kept under its new path and naming the old one.
        of_path = None if path is None else (model.path == path) | (model.from_path == path)
        with storage_errors():
            results = model.query(
                keys.file_versions_pk(tenant, agent_id),
                bound,
                filter_condition=of_path,
                consistent_read=True,
                scan_index_forward=False,
                page_size=limit if path is None else min(max(limit, _MIN_PAGE), _MAX_PAGE),
            )
            return [item.to_version() for item in islice(results, limit)]

    def get_file_version(self, tenant: str, agent_id: str, version_id: str) -> FileVersion | None:
        item = get_item(
            self._items.file_version,
            keys.file_versions_pk(tenant, agent_id),
            keys.file_version_sk(version_id),
        )
        return item.to_version() if item else None

    def count_files(self, tenant: str, agent_id: str) -> int:
        model = self._items.file_count
        item = get_item(model, keys.agent_pk(tenant, agent_id), keys.FILE_COUNT)
        return int(item.memories or 0) if item else 0

    # -- writes ----------------------------------------------------------------------------------

    def write_files(
        self, tenant: str, agent_id: str, writes: Sequence[FileWrite], max_files: int
    ) -> None:
        if not writes:
            return
        limit = self._plan_files(writes, max_files)
        try:
            with Transaction(self.connection) as tx:
                _check_agent(tx, self._items, tenant, agent_id)
                self._put_files(tx, tenant, agent_id, writes, limit)
        except ConditionsFailed as exc:
            raise files_failure(exc, max_files) from exc

    @staticmethod
    def _plan_files(writes: Sequence[FileWrite], max_files: int) -> FileLimit:
        """Refuse what SqliteFiles refuses before writing, and work out the count's move."""
        delta = 0
        creates = False
        for write in writes:
            if write.preview is not None:
                continue  # kept apart from the live heads: it moves no count
            if write.head is not None and write.head.path != write.path:
                raise ValueError(f"the head of {write.path} is for {write.head.path}")
            if write.expected_version is None:
                if write.head is None:
                    raise PreconditionFailed(f"{write.path} cannot be deleted: it does not exist")
                delta += 1
                creates = True
            elif write.head is None:
                delta -= 1
        # The count moves by what the writes do, never by their count_delta, so it cannot drift
        # from the heads; it is checked against max_files whenever a write creates a memory.
        return FileLimit(max_files=max_files, delta=delta, creates=creates)

    def _put_files(
        self,
        tx: Transaction,
        tenant: str,
        agent_id: str,
        writes: Sequence[FileWrite],
        limit: FileLimit,
    ) -> None:
        """Add each write's head and versions, and the count's move, to `tx`."""
        head, version = self._items.file, self._items.file_version
        pk = keys.files_pk(tenant, agent_id)
        for write in writes:
            label = f"file {write.path}"
            if write.preview is not None:
                item = self._items.preview_file.of(tenant, agent_id, write.preview)
                tx.put(f"preview {label}", item, None)
                continue
            if write.head is None:
                current = head.version == write.expected_version
                tx.delete(label, head.key(pk, keys.file_sk(write.path)), current)
            elif write.expected_version is None:
                tx.put(label, head.of(tenant, agent_id, write.head), head.pk.does_not_exist())
            else:
                current = head.version == write.expected_version
                tx.put(label, head.of(tenant, agent_id, write.head), current)
            for each in write.versions:
                kept = version.of(tenant, agent_id, each)
                tx.put(f"file version {each.id}", kept, version.pk.does_not_exist())
        self._move_count(tx, tenant, agent_id, limit)

    def _move_count(self, tx: Transaction, tenant: str, agent_id: str, limit: FileLimit) -> None:
        model = self._items.file_count
        count = model.at(tenant, agent_id)
        within: Condition | None = None
        if limit.creates:
            # count + delta <= max_files. ADD counts a missing count as 0, which then has to
            # pass as 0 + delta <= max_files: the comparison alone is false on a missing one.
            highest = limit.max_files - limit.delta
            within = model.memories <= highest
            if highest >= 0:
                within = model.memories.does_not_exist() | within
        if limit.delta:
            tx.update(COUNT, count, [model.memories.add(limit.delta)], within)
        elif within is not None:
            # A rename creates one memory and deletes another: nothing to add, still a check.
            tx.check(COUNT, model, count.pk, count.sk, within)

    # -- the session index -----------------------------------------------------------------------

    def save_session_index(
        self, tenant: str, agent_id: str, session_id: str, text: str, built_at: datetime
    ) -> None:
        model, session = self._items.session_index, self._items.session
        item = model.of(tenant, agent_id, session_id, text, built_at)
        try:
            with Transaction(self.connection) as tx:
                # SqliteStore's foreign key, and nothing landing behind an agent delete's walk.
                _check_agent(tx, self._items, tenant, agent_id)
                pk, sk = keys.agent_pk(tenant, agent_id), keys.session_sk(session_id)
                tx.check(SESSION, session, pk, sk, session.pk.exists())
                tx.put("index", item, None)
        except ConditionsFailed as exc:
            raise PreconditionFailed(f"session {session_id!r} does not exist") from exc

    def session_index(self, tenant: str, agent_id: str, session_id: str) -> str | None:
        item = get_item(
            self._items.session_index,
            keys.session_pk(tenant, agent_id, session_id),
            keys.SESSION_INDEX,
        )
        return item.text if item else None

    # -- preview turns' changes -------------------------------------------------------------------

    def preview_files(self, tenant: str, agent_id: str) -> list[PreviewFile]:
        with storage_errors():
            items = self._items.preview_file.query(
                keys.preview_files_pk(tenant, agent_id), consistent_read=True
            )
            return sorted((item.to_preview() for item in items), key=lambda p: p.path)

    # -- the tenant's limits ---------------------------------------------------------------------

    def tenant_limits(self, tenant: str) -> TenantLimits | None:
        model = self._items.tenant_limits
        item = get_item(model, keys.tenant_limits_pk(tenant), keys.TENANT_LIMITS)
        if item is None:
            return None
        return TenantLimits(
            memory_bytes=_int_or_none(item.memory_bytes),
            memories_per_agent=_int_or_none(item.memories_per_agent),
            expired_retention=item.expired_retention,
        )

    def save_tenant_limits(self, tenant: str, limits: TenantLimits) -> None:
        item = self._items.tenant_limits.at(tenant)
        item.memory_bytes = limits.memory_bytes
        item.memories_per_agent = limits.memories_per_agent
        item.expired_retention = limits.expired_retention
        with storage_errors():
            item.save()


def files_failure(exc: ConditionsFailed, max_files: int) -> PreconditionFailed | LimitExceeded:
    """LimitExceeded when only the count's condition failed; as SqliteFiles checks the count
    after the heads, a stale head or a missing agent is reported first."""
    if set(exc.failed) == {COUNT}:
        return LimitExceeded(f"an agent keeps at most {max_files} memories", limit=max_files)
    if AGENT in exc.failed:
        return PreconditionFailed("the agent does not exist or is being deleted")
    changed = sorted(label for label in exc.failed if label != COUNT)
    return PreconditionFailed(f"changed concurrently: {', '.join(changed)}")


def _check_agent(tx: Transaction, items: Items, tenant: str, agent_id: str) -> None:
    head = items.agent
    tx.check(AGENT, head, keys.agents_pk(tenant), keys.agent_sk(agent_id), live_agent(head))


def _int_or_none(value: float | None) -> int | None:
    return None if value is None else int(value)
