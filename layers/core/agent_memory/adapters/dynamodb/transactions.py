"""One TransactWriteItems per change, and the translation of DynamoDB failures into domain errors.

Failures are told apart by their error codes and cancellation reasons, never by message text.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from itertools import islice, takewhile
from types import TracebackType
from typing import Any, TypeVar

from pynamodb.connection import Connection
from pynamodb.exceptions import (
    CancellationReason,
    DoesNotExist,
    PynamoDBException,
    TransactWriteError,
)
from pynamodb.expressions.condition import Condition
from pynamodb.expressions.update import Action
from pynamodb.transactions import TransactWrite

from ...domain.kernel.errors import PayloadTooLarge, PreconditionFailed, StorageUnavailable
from .item_base import Item

CONDITION_FAILED = "ConditionalCheckFailedException"
TRANSACTION_CANCELED = "TransactionCanceledException"
REASON_CONDITION_FAILED = "ConditionalCheckFailed"
# Another transaction was writing one of the same items at that moment: a lost race, like a
# failed condition, which the services answer by re-reading and trying again.
REASON_CONFLICT = "TransactionConflict"
# DynamoDB's limits on one TransactWriteItems: 100 actions and 4 MB of items in all.
MAX_TRANSACTION_ACTIONS = 100
MAX_TRANSACTION_BYTES = 4 * 1024 * 1024
# What an item costs beyond its attribute names and values (type tags, framing), generously.
_ITEM_OVERHEAD_BYTES = 256


class ConditionsFailed(PreconditionFailed):
    """A transaction was cancelled because the conditions of the labelled items failed."""

    def __init__(self, failed: dict[str, CancellationReason]) -> None:
        super().__init__(f"conditions failed on {', '.join(sorted(failed))}")
        self.failed = failed


def unavailable(exc: PynamoDBException) -> StorageUnavailable:
    """The domain error for a failure that is nobody's lost race: throttling, outages, limits."""
    return StorageUnavailable(
        "DynamoDB did not complete the request; try again",
        aws_code=exc.cause_response_code or type(exc).__name__,
    )


def is_condition_failure(exc: PynamoDBException) -> bool:
    return exc.cause_response_code == CONDITION_FAILED


@contextmanager
def storage_errors() -> Iterator[None]:
    """Turn any pynamodb failure escaping the block into StorageUnavailable."""
    try:
        yield
    except PynamoDBException as exc:
        raise unavailable(exc) from exc


M = TypeVar("M", bound=Item)


def get_item(model: type[M], pk: str, sk: str) -> M | None:
    """The item at (pk, sk), read consistently, or None when there is none."""
    with storage_errors():
        try:
            return model.get(pk, sk, consistent_read=True)
        except DoesNotExist:
            return None


class Transaction:
    """A TransactWrite whose items carry labels, so a failure says which condition failed.

    Use as a context manager: the items are written together when the block ends without an
    exception. What DynamoDB would refuse outright (an item touched twice, over 100 actions or
    4 MB) is refused before anything is sent. Failed conditions raise ConditionsFailed naming
    the labels; lost races PreconditionFailed; anything else StorageUnavailable.
    """

    def __init__(self, connection: Connection) -> None:
        self._write = TransactWrite(connection=connection)
        # pynamodb sends condition checks, then deletes, then puts, then updates
        # (Connection.transact_write_items), and DynamoDB lists its reasons in that order.
        self._labels: dict[str, list[str]] = {"check": [], "delete": [], "put": [], "update": []}
        self._keys: list[tuple[str, str]] = []
        self._bytes = 0

    def check(self, label: str, model: type[Item], pk: str, sk: str, condition: Condition) -> None:
        self._write.condition_check(model, pk, sk, condition=condition)
        self._add("check", label, pk, sk)

    def put(
        self, label: str, item: Item, condition: Condition | None, *, return_old: bool = False
    ) -> None:
        self._write.save(item, condition=condition, return_values="ALL_OLD" if return_old else None)
        self._add("put", label, item.pk, item.sk)
        self._bytes += item_bytes(item)

    def update(
        self, label: str, item: Item, actions: list[Action], condition: Condition | None
    ) -> None:
        self._write.update(item, actions, condition=condition)
        self._add("update", label, item.pk, item.sk)
        self._bytes += _ITEM_OVERHEAD_BYTES

    def delete(self, label: str, item: Item, condition: Condition | None) -> None:
        self._write.delete(item, condition=condition)
        self._add("delete", label, item.pk, item.sk)

    def _add(self, kind: str, label: str, pk: str, sk: str) -> None:
        self._labels[kind].append(label)
        self._keys.append((pk, sk))

    def _refuse_what_dynamodb_would(self) -> None:
        """DynamoDB answers these with a ValidationException, which no retry would help."""
        if len(set(self._keys)) != len(self._keys):
            # SqliteStore would apply them in turn; one transaction cannot touch an item twice.
            raise ValueError("an item is written twice in one transaction")
        if len(self._keys) > MAX_TRANSACTION_ACTIONS:
            raise PayloadTooLarge(
                f"the change writes {len(self._keys)} items at once; DynamoDB takes at most "
                f"{MAX_TRANSACTION_ACTIONS}",
                code="transaction_too_large",
            )
        if self._bytes > MAX_TRANSACTION_BYTES:
            raise PayloadTooLarge(
                f"the change writes about {self._bytes} bytes at once; DynamoDB takes at most "
                f"{MAX_TRANSACTION_BYTES} in one transaction",
                code="transaction_too_large",
            )

    def __enter__(self) -> Transaction:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> Any:
        if exc_type is not None:
            return None
        self._refuse_what_dynamodb_would()
        try:
            with self._write:  # writes the items as it closes
                pass
        except TransactWriteError as error:
            raise self._failure(error) from error
        return None

    def _failure(self, error: TransactWriteError) -> Exception:
        if error.cause_response_code != TRANSACTION_CANCELED:
            return unavailable(error)
        order = [
            label for kind in ("check", "delete", "put", "update") for label in self._labels[kind]
        ]
        reasons = error.cancellation_reasons
        failed = {
            label: reason
            for label, reason in zip(order, reasons, strict=False)
            if reason is not None and reason.code == REASON_CONDITION_FAILED
        }
        if failed:
            return ConditionsFailed(failed)
        if any(reason is not None and reason.code == REASON_CONFLICT for reason in reasons):
            return PreconditionFailed("a concurrent change touched the same item; try again")
        return unavailable(error)


def item_bytes(item: Item) -> int:
    """About what DynamoDB counts for an item: its attribute names and values, plus framing."""
    size = _ITEM_OVERHEAD_BYTES
    for name, typed in item.serialize().items():
        size += len(name.encode())
        for value in typed.values():
            size += len(value.encode()) if isinstance(value, str) else len(str(value))
    return size


def query_items(
    model: type[M],
    pk: str,
    prefix: str,
    limit: int,
    start_after: str | None,
    *,
    newest_first: bool = False,
    filter_condition: Condition | None = None,
) -> list[M]:
    """Up to `limit` items of one kind (sort keys starting `prefix`) in sort-key order.

    `start_after` is an exclusive bound in the direction of travel. The key condition cannot
    also say "starts with prefix" once it holds a bound, so reading stops at the first item
    of another kind instead.
    """
    if limit <= 0:
        return []
    condition: Condition
    if start_after is None:
        condition = model.sk.startswith(prefix)
    elif newest_first:
        condition = model.sk < prefix + start_after
    else:
        condition = model.sk > prefix + start_after
    with storage_errors():
        results = model.query(
            pk,
            condition,
            filter_condition=filter_condition,
            consistent_read=True,
            scan_index_forward=not newest_first,
            page_size=limit,
        )
        of_kind = takewhile(lambda item: item.sk.startswith(prefix), results)
        return list(islice(of_kind, limit))
