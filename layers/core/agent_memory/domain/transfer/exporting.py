"""Reading one agent out as bundle items, a page at a time: its manifest versions, then its
records, its file memories (paths with a memory, then paths whose memory is gone), then its
sessions, each followed by its turns. A page stops at a count of items or a size, whichever
comes first, so an answer fits a Lambda response; its cursor says where the next one starts."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..history import HistoryEvent, index_id, part_id
from ..kernel.errors import InvalidRequest, NotFound
from ..kernel.paging import decode_cursor, encode_cursor
from ..records import Record, RecordQuery, RecordVersion
from ..search import SearchService
from .bundle import VERSIONS_PER_ITEM

if TYPE_CHECKING:
    from ..files import FileMemory, FileVersion
    from ..kernel.models import Session, Turn
    from ..store import Store

SECTIONS = ("agent", "records", "files", "gone", "sessions")
PAGE_BYTES = 3_000_000  # a Lambda answers at most 6 MB
_READ = 100  # heads, versions or sessions read at a time


@dataclass(frozen=True)
class ExportPage:
    items: list[dict[str, Any]]
    next: str | None
    model_id: str | None


class _Filling:
    """A page being filled: full at `limit` items or PAGE_BYTES, whichever comes first."""

    def __init__(self, limit: int) -> None:
        self.items: list[dict[str, Any]] = []
        self.size = 0
        self.limit = limit

    def add(self, items: list[dict[str, Any]]) -> None:
        for item in items:
            self.items.append(item)
            self.size += len(json.dumps(item))

    @property
    def full(self) -> bool:
        return len(self.items) >= self.limit or self.size >= PAGE_BYTES

    @property
    def room(self) -> int:
        return max(1, self.limit - len(self.items))


def _chunks(seq: Sequence[Any]) -> Iterator[Sequence[Any]]:
    for start in range(0, len(seq), VERSIONS_PER_ITEM):
        yield seq[start : start + VERSIONS_PER_ITEM]


def _vector(found: dict[str, tuple[list[float], str]], doc_id: str) -> dict[str, Any] | None:
    if doc_id not in found:
        return None
    values, model_id = found[doc_id]
    return {"modelId": model_id, "values": values}


class ExportService:
    """One agent's items, in the order an import writes them."""

    def __init__(self, store: Store, search: SearchService) -> None:
        self._store = store
        self._search = search

    @property
    def model_id(self) -> str | None:
        embedder = self._search.embedder
        return embedder.model_id if embedder is not None else None

    def page(self, tenant: str, agent_id: str, cursor: str | None, limit: int) -> ExportPage:
        agent = self._store.get_agent(tenant, agent_id)
        if agent is None:
            raise NotFound(f"agent {agent_id!r} does not exist", code="agent_not_found")
        at = decode_cursor(cursor) or {"s": "agent"}
        section = at.get("s")
        if section not in SECTIONS:
            raise InvalidRequest("the cursor is not one this API gave", code="invalid_cursor")
        fill = _Filling(limit)
        while section is not None and not fill.full:
            position, done = self._section(tenant, agent_id, section, at, fill)
            if done:
                following = SECTIONS.index(section) + 1
                section = SECTIONS[following] if following < len(SECTIONS) else None
                at = {"s": section}
            else:
                at = position
        nxt = encode_cursor(at) if section is not None else None
        return ExportPage(items=fill.items, next=nxt, model_id=self.model_id)

    def _section(
        self, tenant: str, agent_id: str, section: str, at: dict[str, Any], fill: _Filling
    ) -> tuple[dict[str, Any], bool]:
        """Items of `section` from `at` into `fill` until it is full: the position after them
        and whether the section is done."""
        if section == "agent":
            fill.add([self._agent(tenant, agent_id)])
            return {}, True
        if section == "records":
            return self._records(tenant, agent_id, at, fill)
        if section == "files":
            return self._files(tenant, agent_id, at, fill)
        if section == "gone":
            return self._gone(tenant, agent_id, at, fill)
        return self._sessions(tenant, agent_id, at, fill)

    def _agent(self, tenant: str, agent_id: str) -> dict[str, Any]:
        agent = self._store.get_agent(tenant, agent_id)
        assert agent is not None  # checked by page()
        versions = []
        before: int | None = None
        while True:
            got = self._store.list_manifest_versions(tenant, agent_id, _READ, before)
            versions += got
            if len(got) < _READ:
                break
            before = got[-1].version
        return {
            "type": "agent",
            "agentId": agent_id,
            "agent": agent.model_dump(mode="json"),
            "manifestVersions": [v.model_dump(mode="json") for v in reversed(versions)],
        }

    # -- records ------------------------------------------------------------------------------

    def _records(
        self, tenant: str, agent_id: str, at: dict[str, Any], fill: _Filling
    ) -> tuple[dict[str, Any], bool]:
        every = RecordQuery(statuses=frozenset(), include_all_sessions=True, preview="any")
        asked = fill.room
        heads = self._store.find_records(tenant, agent_id, every, asked, at.get("before"))
        found = self._vectors(tenant, agent_id, "record", [h.id for h in heads])
        for n, head in enumerate(heads):
            fill.add(self._record_items(head, found))
            if fill.full and n < len(heads) - 1:
                return {"s": "records", "before": head.id}, False
        last = heads[-1].id if heads else at.get("before")
        return {"s": "records", "before": last}, len(heads) < asked

    def _record_items(
        self, head: Record, found: dict[str, tuple[list[float], str]]
    ) -> list[dict[str, Any]]:
        versions: list[RecordVersion] = []
        before: int | None = None
        while True:
            got = self._store.record_versions(head.tenant, head.agent_id, head.id, _READ, before)
            versions += got
            if len(got) < _READ:
                break
            before = got[-1].record.version
        versions.reverse()
        runs = list(_chunks(versions))
        return [
            {
                "type": "record",
                "agentId": head.agent_id,
                "id": head.id,
                "versions": [v.model_dump(mode="json") for v in run],
                **({"embedding": _vector(found, head.id)} if n == len(runs) - 1 else {}),
            }
            for n, run in enumerate(runs)
        ]

    # -- file memories ------------------------------------------------------------------------

    def _files(
        self, tenant: str, agent_id: str, at: dict[str, Any], fill: _Filling
    ) -> tuple[dict[str, Any], bool]:
        asked = fill.room
        heads = self._store.list_files(
            tenant, agent_id, "", asked, at.get("after"), with_content=True
        )
        found = self._vectors(tenant, agent_id, "file", [h.path for h in heads])
        for n, head in enumerate(heads):
            versions = self._path_versions(tenant, agent_id, head.path)
            fill.add(_file_items(agent_id, head.path, versions, head, found))
            if fill.full and n < len(heads) - 1:
                return {"s": "files", "after": head.path}, False
        last = heads[-1].path if heads else at.get("after")
        return {"s": "files", "after": last}, len(heads) < asked

    def _gone(
        self, tenant: str, agent_id: str, at: dict[str, Any], fill: _Filling
    ) -> tuple[dict[str, Any], bool]:
        """Paths no memory has now: each once, where the walk over every version (newest
        first) meets the path's newest version."""
        page = self._store.file_versions(tenant, agent_id, None, _READ, at.get("before"))
        seen: set[str] = set()
        for n, version in enumerate(page):
            if version.path in seen:
                continue
            seen.add(version.path)
            if self._store.get_file(tenant, agent_id, version.path) is not None:
                continue  # exported with its head
            versions = self._path_versions(tenant, agent_id, version.path)
            if versions and versions[-1].id == version.id:
                fill.add(_file_items(agent_id, version.path, versions, None, {}))
                if fill.full and n < len(page) - 1:
                    return {"s": "gone", "before": version.id}, False
        last = page[-1].id if page else at.get("before")
        return {"s": "gone", "before": last}, len(page) < _READ

    def _path_versions(self, tenant: str, agent_id: str, path: str) -> list[FileVersion]:
        versions: list[FileVersion] = []
        before: str | None = None
        while True:
            got = self._store.file_versions(tenant, agent_id, path, _READ, before)
            versions += got
            if len(got) < _READ:
                break
            before = got[-1].id
        versions.reverse()
        # A rename is one version, kept under its new path: it goes with that path's item.
        return [v for v in versions if v.path == path]

    # -- sessions and turns -------------------------------------------------------------------

    def _sessions(
        self, tenant: str, agent_id: str, at: dict[str, Any], fill: _Filling
    ) -> tuple[dict[str, Any], bool]:
        """The session at `at` (or the next one) and its turns after `turn`; a session's item
        comes before its turns."""
        current, after_turn = at.get("session"), at.get("turn")
        while not fill.full:
            if after_turn is None:  # start the session after `current`
                nxt = self._store.list_sessions(tenant, agent_id, 1, current)
                if not nxt:
                    return {"s": "sessions", "session": current}, True
                current, after_turn = nxt[0].id, 0
                fill.add([_session_item(nxt[0])])
                continue
            assert current is not None  # a session is started before its turns are read
            turns = [
                t
                for t in self._store.list_turns(tenant, agent_id, current)
                if t.sequence > after_turn
            ]
            for turn in turns:
                fill.add([self._turn_item(turn)])
                after_turn = turn.sequence
                if fill.full:
                    break
            if not turns:
                after_turn = None
        return {"s": "sessions", "session": current, "turn": after_turn}, False

    def _turn_item(self, turn: Turn) -> dict[str, Any]:
        where = (turn.tenant, turn.agent_id, turn.session_id)
        events = self._store.turn_events(*where, turn.id)
        executions = self._store.list_executions(*where, turn.id)
        effects = [_effect_doc(e) for e in self._store.staged_effects(*where, turn.id)]
        parts = [
            part_id(index_id(e), n)
            for e in events
            if e.searchable
            for n in range(1, len(e.parts) + 1)
        ]
        found = self._vectors(turn.tenant, turn.agent_id, "event", parts)
        models = {model for _, model in found.values()}
        model_id = models.pop() if len(models) == 1 else None
        return {
            "type": "turn",
            "agentId": turn.agent_id,
            "sessionId": turn.session_id,
            "turn": turn.model_dump(mode="json", exclude={"session_id"}),
            "executions": [x.model_dump(mode="json") for x in executions],
            "effects": effects,
            "events": [_event_doc(e) for e in events],
            "modelId": model_id,
            "vectors": {k: v for k, (v, m) in found.items() if m == model_id} if model_id else {},
        }

    def _vectors(
        self, tenant: str, agent_id: str, kind: str, ids: list[str]
    ) -> dict[str, tuple[list[float], str]]:
        index = self._search.index
        if index is None or not ids:
            return {}
        return index.stored_vectors(tenant, agent_id, kind, ids)  # type: ignore[arg-type]


def _session_item(session: Session) -> dict[str, Any]:
    return {
        "type": "session",
        "agentId": session.agent_id,
        "session": session.model_dump(mode="json", exclude={"agent_id"}),
    }


def _effect_doc(effect: Any) -> dict[str, Any]:
    """A staged write in its storage form, but the tenant its record names."""
    doc: dict[str, Any] = json.loads(effect.model_dump_json())
    record = (doc.get("payload") or {}).get("record")
    if isinstance(record, dict):
        record.pop("tenant", None)
    return doc


def _event_doc(event: HistoryEvent) -> dict[str, Any]:
    return event.model_dump(
        mode="json", exclude={"agent_id", "session_id", "turn_id", "turn_sequence"}
    )


def _file_items(
    agent_id: str,
    path: str,
    versions: list[FileVersion],
    head: FileMemory | None,
    found: dict[str, tuple[list[float], str]],
) -> list[dict[str, Any]]:
    runs = list(_chunks(versions))
    items = []
    for n, run in enumerate(runs):
        item: dict[str, Any] = {
            "type": "file",
            "agentId": agent_id,
            "path": path,
            "versions": [v.model_dump(mode="json") for v in run],
            "final": n == len(runs) - 1,
        }
        if n == len(runs) - 1:
            item["head"] = (
                head.model_dump(mode="json", exclude={"agent_id", "path"}) if head else None
            )
            if head is not None and (vector := _vector(found, path)) is not None:
                item["embedding"] = vector
        items.append(item)
    return items
