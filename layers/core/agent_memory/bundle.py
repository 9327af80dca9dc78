"""The export bundle file: agents read out through `GET .../-/export` into one gzip of JSON lines,
and written back through `POST .../-/import` (docs/export-import.md).

A bundle is a header line, one line per item, and a trailer line holding each section's count
and SHA-256 over its item lines. It is written to a temporary file and renamed when whole, and
read whole before anything is sent: a truncated, changed or foreign file is refused with nothing
written. An import sends the items in batches; after each answered batch a state file beside
the bundle records how many items are done, so an interrupted import continues where it stopped
(every item is idempotent on the server, so a batch sent twice changes nothing either way).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import time
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

FORMAT = "agent-memory-bundle"
VERSION = 1
SECTIONS = ("agent", "record", "file", "session", "turn")
BATCH_ITEMS = 500  # what one import request takes
BATCH_BYTES = 4_000_000  # well inside the API's 10 MB body

Fetch = Callable[[str, str | None], dict[str, Any]]
Send = Callable[[str, list[dict[str, Any]]], dict[str, Any]]
Progress = Callable[[str], None]


class BundleError(Exception):
    """The file is not a whole bundle this version reads: nothing was written."""


@dataclass
class Totals:
    items: int = 0
    events: int = 0
    sections: dict[str, int] = field(default_factory=dict)
    written: int = 0
    kept: int = 0
    vectors_reused: int = 0
    vectors_queued: int = 0
    skipped: int = 0  # items done by an earlier, interrupted run


@dataclass(frozen=True)
class Bundle:
    header: dict[str, Any]
    items: list[dict[str, Any]]
    digest: str  # SHA-256 of the whole file, naming it in the resume state


def _line(doc: dict[str, Any]) -> bytes:
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


def export_bundle(
    out: Path, agents: Iterable[str], fetch: Fetch, progress: Progress | None = None
) -> Totals:
    """Read each agent out page by page into the bundle `out`."""
    agents = list(agents)
    totals = Totals()
    hashes = {s: hashlib.sha256() for s in SECTIONS}
    partial = out.with_name(out.name + ".part")
    started = time.monotonic()
    with gzip.open(partial, "wb") as file:
        header_written = False
        for agent_id in agents:
            cursor: str | None = None
            while True:
                page = fetch(agent_id, cursor)
                if not header_written:
                    file.write(_line(_header(agents, page.get("modelId"))))
                    header_written = True
                for item in page["items"]:
                    line = _line(item)
                    file.write(line)
                    hashes[item["type"]].update(line)
                    totals.sections[item["type"]] = totals.sections.get(item["type"], 0) + 1
                    totals.items += 1
                    totals.events += len(item.get("events", ()))
                if progress:
                    progress(_rate("exported", totals, None, started))
                cursor = page.get("next")
                if cursor is None:
                    break
        if not header_written:
            file.write(_line(_header(agents, None)))
        sections = {
            s: {"count": totals.sections.get(s, 0), "sha256": hashes[s].hexdigest()}
            for s in SECTIONS
        }
        file.write(_line({"end": True, "items": totals.items, "sections": sections}))
    os.replace(partial, out)
    return totals


def _header(agents: list[str], model_id: str | None) -> dict[str, Any]:
    created = datetime.now(UTC).isoformat().replace("+00:00", "Z")
    return {"format": FORMAT, "version": VERSION, "createdAt": created, "agents": agents,
            "modelId": model_id}  # fmt: skip


def read_bundle(path: Path) -> Bundle:
    """The whole bundle, checked: gzip intact, header of this format and version, every line
    JSON, a trailer whose counts and checksums match the items. BundleError otherwise."""
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise BundleError(f"{path}: cannot be read ({exc.strerror})") from exc
    try:
        text = gzip.decompress(raw)
    except (OSError, EOFError, zlib.error) as exc:
        raise BundleError(f"{path}: not a whole gzip file ({exc}); was it cut short?") from exc
    lines = text.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    if len(lines) < 2:
        raise BundleError(f"{path}: no header and trailer: not an agent-memory bundle")
    header, trailer = _json(lines[0], 1), _json(lines[-1], len(lines))
    if header.get("format") != FORMAT:
        raise BundleError(f"{path}: not an agent-memory bundle (format {header.get('format')!r})")
    if header.get("version") != VERSION:
        raise BundleError(
            f"{path}: bundle version {header.get('version')!r}; this release reads {VERSION}"
        )
    if trailer.get("end") is not True or not isinstance(trailer.get("sections"), dict):
        raise BundleError(f"{path}: no trailer: the bundle was cut short")
    items = [_json(line, n) for n, line in enumerate(lines[1:-1], start=2)]
    hashes = {s: hashlib.sha256() for s in SECTIONS}
    counts = dict.fromkeys(SECTIONS, 0)
    for n, (line, item) in enumerate(zip(lines[1:-1], items, strict=True), start=2):
        kind = item.get("type")
        if kind not in hashes or not isinstance(item.get("agentId"), str):
            raise BundleError(f"{path}: line {n} is not a bundle item")
        hashes[kind].update(line + b"\n")
        counts[kind] += 1
    if trailer.get("items") != len(items):
        raise BundleError(
            f"{path}: {len(items)} items where the trailer counts {trailer.get('items')}"
        )
    for section in SECTIONS:
        want = trailer["sections"].get(section) or {}
        if (
            want.get("count") != counts[section]
            or want.get("sha256") != hashes[section].hexdigest()
        ):
            raise BundleError(f"{path}: the {section} section does not match its checksum")
    return Bundle(header=header, items=items, digest=hashlib.sha256(raw).hexdigest())


def _json(line: bytes, n: int) -> dict[str, Any]:
    try:
        doc = json.loads(line)
    except ValueError as exc:
        raise BundleError(f"line {n} is not JSON: the bundle is damaged") from exc
    if not isinstance(doc, dict):
        raise BundleError(f"line {n} is not a JSON object: the bundle is damaged")
    return doc


def batches(items: list[dict[str, Any]], start: int) -> Iterator[tuple[int, list[dict[str, Any]]]]:
    """(index after the batch, batch): consecutive items of one agent from `start`, within what
    one request takes."""
    batch: list[dict[str, Any]] = []
    size = 0
    for n in range(start, len(items)):
        item = items[n]
        bytes_ = len(json.dumps(item))
        if batch and (
            item["agentId"] != batch[0]["agentId"]
            or len(batch) >= BATCH_ITEMS
            or size + bytes_ > BATCH_BYTES
        ):
            yield n, batch
            batch, size = [], 0
        batch.append(item)
        size += bytes_
    if batch:
        yield len(items), batch


def import_bundle(
    path: Path, send: Send, state: Path | None = None, progress: Progress | None = None
) -> Totals:
    """Send the bundle's items in batches, after checking it whole; resume from `state`."""
    bundle = read_bundle(path)
    state = state or Path(str(path) + ".import-state")
    done = _done(state, bundle.digest)
    totals = Totals(items=len(bundle.items), skipped=done)
    totals.events = sum(len(i.get("events", ())) for i in bundle.items)
    started = time.monotonic()
    for after, batch in batches(bundle.items, done):
        answer = send(batch[0]["agentId"], batch)
        totals.written += int(answer.get("written", 0))
        totals.kept += int(answer.get("kept", 0))
        totals.vectors_reused += int(answer.get("vectorsReused", 0))
        totals.vectors_queued += int(answer.get("vectorsQueued", 0))
        _save(state, bundle.digest, after)
        if progress:
            progress(_rate("imported", totals, after, started))
    return totals


def _done(state: Path, digest: str) -> int:
    try:
        saved = json.loads(state.read_text())
    except (OSError, ValueError):
        return 0
    if not isinstance(saved, dict) or saved.get("bundle") != digest:
        return 0  # another bundle's state: start from the first item
    done = saved.get("done")
    return done if isinstance(done, int) and done >= 0 else 0


def _save(state: Path, digest: str, done: int) -> None:
    partial = state.with_name(state.name + ".tmp")
    partial.write_text(json.dumps({"bundle": digest, "done": done}))
    os.replace(partial, state)


def _rate(verb: str, totals: Totals, at: int | None, started: float) -> str:
    seconds = max(time.monotonic() - started, 1e-6)
    if at is None:
        return f"{verb} {totals.items} items ({totals.items / seconds:.0f}/s)"
    percent = 100 * at / max(totals.items, 1)
    return f"{verb} {at}/{totals.items} items ({percent:.0f}%)"
