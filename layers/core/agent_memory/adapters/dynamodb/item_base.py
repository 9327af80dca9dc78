"""What every item of the single table is built on: its key, its expiry, and datetimes kept as
ISO 8601 text (the form SqliteStore keeps)."""

from __future__ import annotations

from datetime import datetime
from typing import TypeVar

from pynamodb.attributes import Attribute, TTLAttribute, UnicodeAttribute
from pynamodb.constants import STRING
from pynamodb.models import Model

M = TypeVar("M", bound="Item")


class IsoDateTimeAttribute(Attribute[datetime]):
    """A datetime kept as its ISO 8601 text, offset included, so it reads back exactly."""

    attr_type = STRING

    def serialize(self, value: datetime) -> str:
        return value.isoformat()

    def deserialize(self, value: str) -> datetime:
        return datetime.fromisoformat(value)


class Item(Model):
    """What every item has: its key, and an expiry DynamoDB's TTL sweeper honours when set."""

    pk = UnicodeAttribute(hash_key=True)
    sk = UnicodeAttribute(range_key=True)
    ttl = TTLAttribute(null=True)

    @classmethod
    def key(cls: type[M], pk: str, sk: str) -> M:
        """An instance holding only the key, to update or delete an item without reading it."""
        return cls(pk, sk)
