"""The stream indexer's fact keys (domain/history_keys): what a turn item's change asks of the
index's key documents (`<event id>.k`, one an event).

A turn item keeps, in `fact_keys`, the facts the last review that read it proposed from each of
its events, and in `fact_keys_at` when that review finished (the documents' version, so a later
review's keys replace an earlier one's in whatever order the index sees them). The item changes
many times besides (its review's status, its flags, its end): only the events whose keys differ
from the state before the change are embedded again, so those changes cost no Bedrock call.
Events a later review left without keys lose their document; a REMOVE (agent deletion walks the
session's items one by one) removes them all.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ...domain.history.keys import EventKeys, key_doc_id, keys_from_json
from . import keys


@dataclass(frozen=True)
class KeyChange:
    """The key documents one change of a turn item writes and deletes."""

    tenant: str
    agent_id: str
    version: datetime
    upsert: list[EventKeys]
    delete: list[str]  # document ids


def item_key(record: Mapping[str, Any]) -> tuple[str, str]:
    """(pk, sk) of a raw stream record's item."""
    named = (record.get("dynamodb") or {}).get("Keys") or {}
    return str(named.get("pk", {}).get("S")), str(named.get("sk", {}).get("S"))


def sequence_of(record: Mapping[str, Any]) -> str:
    return str((record.get("dynamodb") or {}).get("SequenceNumber"))


def superseded(records: Sequence[Mapping[str, Any]]) -> set[str]:
    """Sequence numbers of changes a later change of the same item in the batch replaces."""
    last: dict[tuple[str, str], str] = {}
    replaced: set[str] = set()
    for record in records:
        item, sequence = item_key(record), sequence_of(record)
        if item in last:
            replaced.add(last[item])
        last[item] = sequence
    return replaced


def turn_keys(image: Mapping[str, Any] | None) -> dict[str, EventKeys]:
    """Each event's keys, as a turn item's image holds them (events without any left out)."""
    if not image:
        return {}
    return {k.event_id: k for k in keys_from_json(image.get("fact_keys")) if k.keys}


def key_change(old: Mapping[str, Any] | None, new: Mapping[str, Any] | None) -> KeyChange | None:
    """What a turn item going from `old` to `new` (None: absent) asks of its events' key
    documents; None when its keys did not change."""
    before, after = turn_keys(old), turn_keys(new)
    if before == after:
        return None
    image = new or old
    assert image is not None  # keys differ, so one of the two holds some
    # Absent only on an item written before fact_keys_at was kept: older than any review since.
    at = (new or {}).get("fact_keys_at") or image["created_at"]
    return KeyChange(
        tenant=str(image["tenant"]),
        agent_id=str(image["agent_id"]),
        version=datetime.fromisoformat(str(at)),
        upsert=[k for event_id, k in after.items() if before.get(event_id) != k],
        delete=[key_doc_id(event_id) for event_id in before if event_id not in after],
    )


def turn_spans(records: Sequence[Mapping[str, Any]]) -> tuple[dict[str, dict[str, Any]], set[str]]:
    """Each turn item changed more than once in the batch, as one change from the state before
    the batch (its first change's old image) to the state after (its last change), to apply in
    place of its first change; and the sequence numbers of its later changes, which that one
    stands for.

    In place of the first: were it applied as the last (as a head's last change is), a failure
    would have Lambda retry from the last change, whose old image already holds the keys the
    skipped earlier changes wrote, and the keys would never be indexed."""
    first: dict[tuple[str, str], Mapping[str, Any]] = {}
    last: dict[tuple[str, str], Mapping[str, Any]] = {}
    later: set[str] = set()
    for record in records:
        item = item_key(record)
        if not keys.is_turn(*item):
            continue
        if item in first:
            later.add(sequence_of(record))
        else:
            first[item] = record
        last[item] = record
    merged: dict[str, dict[str, Any]] = {}
    for item, start in first.items():
        end = last[item]
        if end is start:
            continue
        stream = {**end["dynamodb"], "SequenceNumber": sequence_of(start)}
        stream.pop("OldImage", None)
        if "OldImage" in start["dynamodb"]:
            stream["OldImage"] = start["dynamodb"]["OldImage"]
        merged[sequence_of(start)] = {**end, "dynamodb": stream}
    return merged, later
