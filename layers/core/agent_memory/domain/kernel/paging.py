"""Opaque cursors and page sizes, shared by every listing and every adapter."""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Sequence
from typing import Any, TypeVar, cast

from .errors import InvalidRequest
from .models import Page

T = TypeVar("T")

DEFAULT_LIMIT = 50
MAX_LIMIT = 200


def encode_cursor(position: dict[str, Any]) -> str:
    raw = json.dumps(position, separators=(",", ":"), sort_keys=True).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str | None) -> dict[str, Any] | None:
    """The position a cursor names, or None for the first page; a malformed cursor is a 400."""
    if not cursor:
        return None
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        position = json.loads(raw)
    except (binascii.Error, ValueError) as exc:
        raise _bad_cursor() from exc
    if not isinstance(position, dict):
        raise _bad_cursor()
    return position


def check_limit(limit: int | None) -> int:
    if limit is None:
        return DEFAULT_LIMIT
    if not 1 <= limit <= MAX_LIMIT:
        raise InvalidRequest(f"limit must be between 1 and {MAX_LIMIT}", code="invalid_limit")
    return limit


def _bad_cursor() -> InvalidRequest:
    return InvalidRequest("cursor is not one this service issued", code="invalid_cursor")


def str_field(position: dict[str, Any] | None, key: str) -> str | None:
    if position is None:
        return None
    value = position.get(key)
    if not isinstance(value, str):
        raise _bad_cursor()
    return value


# Numbers a cursor holds are versions and sequences: far inside the 64 bits SQLite and DynamoDB
# compare (a larger one would fail in the store, a 500 for the caller's typo).
_CURSOR_INT = 2**62


def _is_cursor_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and abs(value) < _CURSOR_INT


def int_field(position: dict[str, Any] | None, key: str) -> int | None:
    if position is None:
        return None
    value = position.get(key)
    if not _is_cursor_int(value):
        raise _bad_cursor()
    return int(cast(int, value))


def int_pair_field(position: dict[str, Any] | None, key: str) -> tuple[int, int] | None:
    if position is None:
        return None
    value = position.get(key)
    if not (isinstance(value, list) and len(value) == 2 and all(map(_is_cursor_int, value))):
        raise _bad_cursor()
    return int(value[0]), int(value[1])


def page(items: Sequence[T], size: int, position_of: Callable[[T], dict[str, Any]]) -> Page[T]:
    """Cut `items` (fetched with one extra) to `size`; the extra one's presence means more."""
    kept = list(items[:size])
    more = len(items) > size
    return Page(items=kept, next=encode_cursor(position_of(kept[-1])) if more and kept else None)
