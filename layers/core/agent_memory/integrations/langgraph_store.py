"""A LangGraph `BaseStore` over this service's records, so a LangGraph or LangMem app switches
to agent-memory by changing the line that makes its store:

    store = AgentMemoryStore(Client(url, token), "teams/web/assistant")

How it maps onto records, what it answers as LangGraph's own stores do and where it does not:
`AgentMemoryStore`'s docstring.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime
from typing import Any

from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)

from ..client import ApiError, Client
from .langgraph_filters import namespace_matches, value_matches
from .turns import TurnRunner

logger = logging.getLogger(__name__)

PREFIX_LABELS = 4
LABEL_VALUE_MAX = 256
SUMMARY_MAX = 500
# A turn stages at most this many writes (the service's limit).
TURN_WRITES = 24
# The most records the service lists or ranks in one call.
PAGE = 200
_LABELS = (
    "namespace",
    "key",
    "created_at",
    "indexed",
    *(f"ns{i}" for i in range(1, PREFIX_LABELS + 1)),
)
# How long a search with a query waits for the store's last writes' vectors, in seconds.
VECTOR_WAIT = 30.0


class AgentMemoryStore(BaseStore):
    """LangGraph's store over the records of `agent_id`: all of one agent, in agent scope, of one
    kind (`langgraph` by default).

    | LangGraph | agent-memory |
    |---|---|
    | namespace `("users", "u1", "prefs")` | label `namespace` = `users.u1.prefs` (LangGraph forbids `.` in a namespace label), and `ns1`..`ns4` = its first four labels, so a prefix search filters in the service |
    | key | label `key` |
    | value (a dict) | `content`: the value as JSON; `summary`: `key: value` on one line (at most 500 characters), both found by words and meaning |
    | put of an existing key | `add_memory` with `replaces` the current record (the old one stays in its versions) |
    | delete | `delete_memory` (stays readable through history) |
    | created_at / updated_at | label `created_at` (carried over by each put, as LangGraph's Postgres store keeps it) / the record's `createdAt` |
    | put with `index=False` | label `indexed` = `false` |

    As LangGraph's stores answer (tests/e2e/test_langgraph_store.py runs each case against its
    InMemoryStore too):
    - `search` returns every item under the prefix that passes `filter`. With a `query`, those
      the service's hybrid search (words, meaning, recency; the agent's `search` settings) finds
      come first, in its order, scored by their rank among them (1, 1/2, 1/3, ...: the service
      returns order, not scores); the rest follow newest first with score None, as InMemoryStore places items it
      has no vector for. Without a query: newest first (as the Postgres store orders).
    - `filter` takes LangGraph's operators (`$eq`, `$ne`, `$gt`, `$gte`, `$lt`, `$lte`, nested
      dicts). `list_namespaces` takes prefix and suffix conditions with `*` wildcards,
      `max_depth`, `limit` and `offset`, sorted as LangGraph sorts them.
    - A put with `index=False` is stored and read back, found by a search's prefix and filter,
      never ranked by a query: it is among the items after the ranked ones.
    - A search with a query right after a put waits for the put's vectors (up to
      `vector_wait` seconds, while the service reports vectors pending), so it finds what only
      meaning finds. The cloud's index cannot tell what is pending (it embeds as it indexes,
      a moment after the write); the put's item is then still returned, among the unranked.
    - A batch reads first, then writes (as LangGraph's in-memory store does: the last put of a
      key wins), its writes in one turn committed at once, so they apply together or not at
      all; a turn holds at most 24 writes, so a larger batch is several turns. The first call
      saves what the agent's manifest needs (memory enabled, agent scope, the two tools, the
      kind and the labels) as a new manifest version when something is missing.

    Deviations that remain (each tested):
    - `index=[fields]` on a put: the whole value is indexed, not only those fields (the
      service indexes a record's summary and content whole). An `index=False` record is still
      found by the service's own search (an agent's `search_memory`): only this store's
      ranking leaves it out.
    - TTL: `supports_ttl` is false, so BaseStore itself refuses a `ttl`.
    - A namespace (joined) and a key are at most 256 characters each (the longest label value).
    - `filter`, and a prefix deeper than four labels, are applied to the service's answers: a
      query ranks its best 200 candidates, the rest of the items follow unranked.
    - A namespace whose every item was deleted is not listed (InMemoryStore keeps listing it).
    """

    __slots__ = (
        "client",
        "agent_id",
        "kind",
        "runner",
        "vector_wait",
        "_ready",
        "_lock",
        "_unembedded",
    )

    def __init__(
        self,
        client: Client,
        agent_id: str,
        *,
        kind: str = "langgraph",
        session_id: str | None = None,
        vector_wait: float = VECTOR_WAIT,
    ) -> None:
        if vector_wait < 0:
            raise ValueError(f"vector_wait is seconds, 0 or more: {vector_wait}")
        self.client = client
        self.agent_id = agent_id
        self.kind = kind
        # The store's writes are turns of one session (made on the first write).
        self.runner = TurnRunner(client, agent_id, session_id)
        self.vector_wait = vector_wait
        self._ready = False
        self._lock = threading.Lock()
        # Whether this store wrote since it last saw the agent's vectors all in.
        self._unembedded = False

    # -- BaseStore ---------------------------------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        self._ensure_manifest()
        ops = list(ops)
        results: list[Result] = []
        puts: dict[tuple[tuple[str, ...], str], PutOp] = {}
        for op in ops:
            if isinstance(op, GetOp):
                results.append(self._get(op.namespace, op.key))
            elif isinstance(op, SearchOp):
                results.append(self._search(op))
            elif isinstance(op, ListNamespacesOp):
                results.append(self._list_namespaces(op))
            elif isinstance(op, PutOp):
                puts[(op.namespace, op.key)] = op
                results.append(None)
            else:
                raise ValueError(f"unknown operation: {type(op).__name__}")
        self._write(list(puts.values()))
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        # The client is synchronous: a thread keeps the event loop free while it waits.
        return await asyncio.to_thread(self.batch, list(ops))

    # -- reads -------------------------------------------------------------------------------

    def _get(self, namespace: tuple[str, ...], key: str) -> Item | None:
        record = self._find(namespace, key)
        return _item(record) if record is not None else None

    def _find(self, namespace: tuple[str, ...], key: str) -> dict[str, Any] | None:
        """The record holding the key's value now (the newest, should two puts have raced)."""
        labels = {"namespace": _joined(namespace), "key": _label(key, "key")}
        found = self.client.list_records(
            self.agent_id, kind=self.kind, labels=json.dumps(labels), scope="agent", limit=1
        )["records"]
        return found[0] if found else None

    def _search(self, op: SearchOp) -> list[SearchItem]:
        """Every item under the prefix passing the filter: with a query, those it finds first in
        its order, then the rest newest first (the class docstring)."""
        prefix = tuple(op.namespace_prefix)
        labels = {f"ns{i + 1}": _label(part, "namespace") for i, part in enumerate(prefix)}
        labels = {k: v for k, v in labels.items() if int(k[2:]) <= PREFIX_LABELS}
        wanted = op.offset + op.limit
        query: dict[str, Any] = {"kind": self.kind, "scope": "agent"}
        if labels:
            query["labels"] = json.dumps(labels)

        def passes(item: Item) -> bool:
            if item.namespace[: len(prefix)] != prefix:
                return False
            return not op.filter or all(
                value_matches(item.value.get(k), v) for k, v in op.filter.items()
            )

        found: list[SearchItem] = []
        ranked: set[str] = set()
        if op.query:
            self._await_vectors()
            answer = self.client.list_records(self.agent_id, query=op.query, limit=PAGE, **query)
            for record in answer["records"]:
                item = _item(record)
                if record["labels"].get("indexed") == "false" or not passes(item):
                    continue
                ranked.add(record["id"])
                found.append(_search_item(item, 1.0 / (len(found) + 1)))
                if len(found) >= wanted:
                    return found[op.offset : wanted]
        for record in self._pages(query):
            if len(found) >= wanted:
                break
            item = _item(record)
            if record["id"] not in ranked and passes(item):
                found.append(_search_item(item, None))
        return found[op.offset : wanted]

    def _await_vectors(self) -> None:
        """After this store's writes, until the service has their vectors (or `vector_wait`
        seconds pass, or it cannot tell): a query then finds them by meaning too."""
        if not self._unembedded:
            return
        deadline = time.monotonic() + self.vector_wait
        pause = 0.02
        while self.client.index_status(self.agent_id).get("pendingVectors"):
            if time.monotonic() >= deadline:
                logger.warning(
                    "searching before every vector is in",
                    extra={"agent_id": self.agent_id, "waited_s": self.vector_wait},
                )
                return  # still pending: a later search waits again
            time.sleep(pause)
            pause = min(2 * pause, 0.5)
        self._unembedded = False

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        namespaces = {
            tuple(record["labels"]["namespace"].split("."))
            for record in self._pages({"kind": self.kind, "scope": "agent"})
        }
        for condition in op.match_conditions or ():
            namespaces = {ns for ns in namespaces if namespace_matches(condition, ns)}
        if op.max_depth is not None:
            namespaces = {ns[: op.max_depth] for ns in namespaces}
        return sorted(namespaces)[op.offset : op.offset + op.limit]

    def _pages(self, query: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """Every matching record, newest first, a page at a time."""
        cursor = None
        while True:
            page = self.client.list_records(self.agent_id, limit=PAGE, cursor=cursor, **query)
            yield from page["records"]
            cursor = page.get("next")
            if not cursor:
                return

    # -- writes ------------------------------------------------------------------------------

    def _write(self, puts: list[PutOp]) -> None:
        calls: list[tuple[str, dict[str, Any]]] = []
        for op in puts:
            current = self._find(op.namespace, op.key)
            if op.value is None:
                if current is not None:
                    calls.append(("delete_memory", {"id": current["id"]}))
                continue
            created = _item(current).created_at if current is not None else datetime.now(UTC)
            arguments = self._record(op.namespace, op.key, dict(op.value), created)
            if op.index is False:
                arguments["labels"]["indexed"] = "false"
            if current is not None:
                arguments["replaces"] = current["id"]
            calls.append(("add_memory", arguments))
        for start in range(0, len(calls), TURN_WRITES):
            self.runner.run(self._calls(calls[start : start + TURN_WRITES]))
        if any(name == "add_memory" for name, _ in calls):
            self._unembedded = True

    def _calls(self, calls: list[tuple[str, dict[str, Any]]]) -> Callable[[str, str], None]:
        """The work of one turn: each call in it, in order."""

        def work(session: str, turn: str) -> None:
            for name, arguments in calls:
                self.client.call_tool(self.agent_id, session, turn, name, **arguments)

        return work

    def _record(
        self, namespace: tuple[str, ...], key: str, value: dict[str, Any], created: datetime
    ) -> dict[str, Any]:
        labels = {
            "namespace": _joined(namespace),
            "key": _label(key, "key"),
            "created_at": created.isoformat(),
        }
        for i, part in enumerate(namespace[:PREFIX_LABELS]):
            labels[f"ns{i + 1}"] = part
        content = json.dumps(value, ensure_ascii=False, default=str)
        summary = " ".join(f"{key}: {content}".split())[:SUMMARY_MAX]
        return {
            "summary": summary,
            "content": content,
            "kind": self.kind,
            "labels": labels,
            "scope": "agent",
        }

    # -- the agent's manifest ----------------------------------------------------------------

    def _ensure_manifest(self) -> None:
        with self._lock:
            if self._ready:
                return
            try:
                manifest = self.client.get_agent(self.agent_id)["manifest"]
            except ApiError as exc:
                if exc.status != 404:
                    raise
                manifest = {}
            wanted = _with_store_needs(manifest, self.kind)
            if wanted != manifest:
                self.client.put_agent(self.agent_id, wanted)
            self._ready = True


def _with_store_needs(manifest: dict[str, Any], kind: str) -> dict[str, Any]:
    """The manifest with what the store needs added (nothing else changed)."""
    manifest = json.loads(json.dumps(manifest))
    memory = manifest.setdefault("harness", {}).setdefault("memory", {})
    memory["enabled"] = True
    tools = memory.setdefault("tools", [])
    tools += [t for t in ("add_memory", "delete_memory") if t not in tools]
    scope = memory.setdefault("scope", {})
    for side in ("read", "write"):
        listed = scope.setdefault(side, ["session"])
        if "agent" not in listed:
            listed.append("agent")
    kinds = memory.setdefault("kinds", ["guidance", "fact", "event", "reference"])
    if kind not in kinds:
        kinds.append(kind)
    labels = memory.setdefault("labels", {})
    free = iter(sorted(set(range(5, 19)) - {label["number"] for label in labels.values()}))
    for name in _LABELS:
        if name not in labels:
            number = next(free, None)
            if number is None:
                raise ValueError(
                    f"agent memory has no free label number for the store's label {name!r}"
                )
            labels[name] = {"number": number, "description": "LangGraph store"}
    return manifest


def _label(value: str, what: str) -> str:
    if not value or len(value) > LABEL_VALUE_MAX:
        raise ValueError(f"a {what} is 1 to {LABEL_VALUE_MAX} characters: {value[:40]!r}")
    return value


def _joined(namespace: tuple[str, ...]) -> str:
    return _label(".".join(namespace), "namespace")


def _item(record: dict[str, Any]) -> Item:
    labels = record["labels"]
    return Item(
        value=json.loads(record["content"]),
        key=labels["key"],
        namespace=tuple(labels["namespace"].split(".")),
        created_at=datetime.fromisoformat(labels.get("created_at") or record["createdAt"]),
        updated_at=datetime.fromisoformat(record["createdAt"]),
    )


def _search_item(item: Item, score: float | None) -> SearchItem:
    return SearchItem(
        namespace=item.namespace,
        key=item.key,
        value=item.value,
        created_at=item.created_at,
        updated_at=item.updated_at,
        score=score,
    )
