"""Deleting whole partitions of the table in batches, in an order a crash cannot strand: what
an agent delete walks (DynamoStore.delete_agent)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from itertools import chain
from typing import Any

from ...domain.kernel.errors import StorageUnavailable
from .items import Items
from .transactions import storage_errors

_BATCH_SIZE = 25  # BatchWriteItem's limit
_BATCH_ATTEMPTS = 8
_BATCH_BACKOFF_SECONDS = 0.05


class PartitionDeletes:
    """Batch deletes of whole partitions, for a store holding `table_name` and its `_items`."""

    table_name: str
    _items: Items

    def _keys(self, pk: str) -> Iterator[tuple[str, str]]:
        """Every key in a partition, read a page at a time."""
        results = self._items.item.query(pk, consistent_read=True, attributes_to_get=["pk", "sk"])
        with storage_errors():
            for item in results:
                yield item.pk, item.sk

    def _delete_partition(self, pk: str, leads_to: Callable[[str], str | None]) -> None:
        """Delete every item of a partition, and the partitions its items lead to.

        A batch of items goes only after every item of the partitions they lead to (named by
        `leads_to(sk)`, None for an item that leads nowhere), so a crash never strands items.
        """
        batch: list[tuple[str, str]] = []
        for key in self._keys(pk):
            batch.append(key)
            if len(batch) == _BATCH_SIZE:
                self._delete_led(batch, leads_to)
                batch = []
        self._delete_led(batch, leads_to)

    def _delete_led(
        self, batch: list[tuple[str, str]], leads_to: Callable[[str], str | None]
    ) -> None:
        owned = [pk for pk in (leads_to(sk) for _, sk in batch) if pk is not None]
        self._delete_keys(chain.from_iterable(self._keys(pk) for pk in owned))
        self._delete_keys(batch)

    def _delete_keys(self, keys_: Iterable[tuple[str, str]]) -> None:
        batch: list[dict[str, Any]] = []
        for pk, sk in keys_:
            batch.append({"pk": pk, "sk": sk})
            if len(batch) == _BATCH_SIZE:
                self._batch_delete(batch)
                batch = []
        if batch:
            self._batch_delete(batch)

    def _batch_delete(self, batch: list[dict[str, Any]]) -> None:
        """One BatchWriteItem, resending what DynamoDB leaves unprocessed with backoff."""
        for attempt in range(_BATCH_ATTEMPTS):
            with storage_errors():
                data = self._items.table.batch_write_item(delete_items=batch)
            unprocessed = (data or {}).get("UnprocessedItems", {}).get(self.table_name, [])
            if not unprocessed:
                return
            # Unprocessed keys come back typed ({"S": ...}); pynamodb passes those through.
            batch = [request["DeleteRequest"]["Key"] for request in unprocessed]
            time.sleep(_BATCH_BACKOFF_SECONDS * 2**attempt)
        raise StorageUnavailable(
            "DynamoDB is throttling the delete; DELETE the agent again to finish"
        )
