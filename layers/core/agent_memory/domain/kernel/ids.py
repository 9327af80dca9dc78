"""Identifiers: path-like agent ids and time-ordered ids for everything the service creates."""

from __future__ import annotations

import os
import re
import threading
import time
from datetime import datetime

from .errors import InvalidRequest

AGENT_ID_MAX_LENGTH = 256
AGENT_ID_MAX_SEGMENTS = 10
# A segment starts with a letter or digit, so the separator segment `-` can never be part of an id.
SEGMENT_PATTERN = r"[A-Za-z0-9][A-Za-z0-9._~-]{0,63}"
# The whole id as the OpenAPI document states it (the length is checked apart).
AGENT_ID_PATTERN = rf"^{SEGMENT_PATTERN}(/{SEGMENT_PATTERN}){{0,{AGENT_ID_MAX_SEGMENTS - 1}}}$"
OPAQUE_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$"
_SEGMENT = re.compile(rf"^{SEGMENT_PATTERN}$")
_OPAQUE_ID = re.compile(OPAQUE_ID_PATTERN)
_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def validate_agent_id(agent_id: str) -> str:
    """Return the agent id if it is a well-formed path-like id (`teams/web/releases`), else 400."""
    if not agent_id or len(agent_id) > AGENT_ID_MAX_LENGTH:
        raise InvalidRequest(
            f"agent id must be 1 to {AGENT_ID_MAX_LENGTH} characters", code="invalid_agent_id"
        )
    segments = agent_id.split("/")
    if len(segments) > AGENT_ID_MAX_SEGMENTS:
        raise InvalidRequest(
            f"agent id has more than {AGENT_ID_MAX_SEGMENTS} segments", code="invalid_agent_id"
        )
    for segment in segments:
        if not _SEGMENT.match(segment):
            raise InvalidRequest(
                f"agent id segment {segment!r} is not allowed: each segment is 1 to 64 of "
                "A-Z a-z 0-9 . _ ~ - and starts with a letter or digit",
                code="invalid_agent_id",
            )
    return agent_id


def validate_opaque_id(value: str, what: str) -> str:
    """Session, turn and record ids: 1-128 of A-Z a-z 0-9 _ -, starting with a letter or digit."""
    if not _OPAQUE_ID.match(value):
        raise InvalidRequest(
            f"{what} id {value!r} is not allowed: 1 to 128 of A-Z a-z 0-9 _ -",
            code=f"invalid_{what}_id",
        )
    return value


def id_floor(prefix: str, when: datetime) -> str:
    """An id just below any `new_id(prefix)` makes from `when` on: the ones above it."""
    return _encoded(prefix, max((int(when.timestamp() * 1000) << 80) - 1, 0))


def _encoded(prefix: str, value: int) -> str:
    chars = []
    for _ in range(26):
        chars.append(_CROCKFORD[value & 31])
        value >>= 5
    return f"{prefix}_{''.join(reversed(chars))}"


_last = [0, 0]
_lock = threading.Lock()


def forget_last_id() -> None:
    """Start the next id afresh (after a restore from a snapshot: every environment resumed
    from it would otherwise count up from the same last id whenever its clock reads no later
    than the snapshot's, and make the same ids)."""
    with _lock:
        _last[0], _last[1] = 0, 0


def new_id(prefix: str) -> str:
    """A monotonic ULID: 48-bit millisecond time then 80 random bits, Crockford base32.

    Ids sort by creation time, which gives stable newest-first listings without a second index;
    within one millisecond of one process the random part counts up, so order still holds.
    """
    with _lock:
        millis = int(time.time() * 1000)
        if millis <= _last[0]:
            millis, entropy = _last[0], _last[1] + 1
        else:
            entropy = int.from_bytes(os.urandom(10), "big") >> 1  # room to count up
        _last[0], _last[1] = millis, entropy
    return _encoded(prefix, (millis << 80) | (entropy & ((1 << 80) - 1)))
