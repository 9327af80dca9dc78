"""One TransactWriteItems per change, and the translation of DynamoDB failures into domain errors.

Failures are told apart by their error codes and cancellation reasons, never by message text.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from types import TracebackType
from typing import Any

from pynamodb.connection import Connection
from pynamodb.exceptions import CancellationReason, PynamoDBException, TransactWriteError
from pynamodb.expressions.condition import Condition
from pynamodb.expressions.update import Action
from pynamodb.transactions import TransactWrite

from ...domain.errors import StorageUnavailable
from ...domain.ports import PreconditionFailed
from .items import Item

CONDITION_FAILED = "ConditionalCheckFailedException"
TRANSACTION_CANCELED = "TransactionCanceledException"
REASON_CONDITION_FAILED = "ConditionalCheckFailed"
# Another transaction was writing one of the same items at that moment: a lost race, like a
# failed condition, which the services answer by re-reading and trying again.
REASON_CONFLICT = "TransactionConflict"


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


class Transaction:
    """A TransactWrite whose items carry labels, so a failure says which condition failed.

    Use as a context manager: the items are written together when the block ends without an
    exception. Failed conditions raise ConditionsFailed naming the labels; lost races
    PreconditionFailed; anything else StorageUnavailable.
    """

    def __init__(self, connection: Connection) -> None:
        self._write = TransactWrite(connection=connection)
        # pynamodb sends condition checks, then deletes, then puts, then updates
        # (Connection.transact_write_items), and DynamoDB lists its reasons in that order.
        self._labels: dict[str, list[str]] = {"check": [], "delete": [], "put": [], "update": []}

    def check(self, label: str, model: type[Item], pk: str, sk: str, condition: Condition) -> None:
        self._write.condition_check(model, pk, sk, condition=condition)
        self._labels["check"].append(label)

    def put(
        self, label: str, item: Item, condition: Condition, *, return_old: bool = False
    ) -> None:
        self._write.save(item, condition=condition, return_values="ALL_OLD" if return_old else None)
        self._labels["put"].append(label)

    def update(self, label: str, item: Item, actions: list[Action], condition: Condition) -> None:
        self._write.update(item, actions, condition=condition)
        self._labels["update"].append(label)

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
