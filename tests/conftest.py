"""Set-up shared by every test directory: two costs of moto's DynamoDB that tests paid again and
again, cut without changing what any request does."""

from __future__ import annotations

import copy
import functools
import logging
import threading
from types import SimpleNamespace
from typing import Any

import botocore.loaders
import botocore.session
import moto
import moto.dynamodb.models as moto_dynamodb
import pytest
from moto.dynamodb.models.table import Table

# Each DynamoDB test under moto makes a new pynamodb connection, so a new botocore session, and
# every session read botocore's service models from disk again: most of such a test's set-up.
# One loader for the run reads each model once; the models are read-only data that every client
# of one session shares already.
botocore.session.create_loader = functools.cache(botocore.loaders.create_loader)

# moto 5.2.5's TransactWriteItems keeps a deep copy of a table to roll back to, made again for
# each item of the transaction (the copies are alike: nothing changes the table meanwhile); it
# was a quarter of a DynamoDB test's time. Here each table is copied once a transaction. The
# hook is moto's private module state: moto is pinned, and a new version fails here first.
if moto.__version__ != "5.2.5":
    raise RuntimeError(
        f"tests/conftest.py hooks moto 5.2.5's transactions; moto is {moto.__version__}"
    )

_copies = threading.local()


def _deepcopy(thing: Any, memo: dict[int, Any] | None = None) -> Any:
    tables: dict[int, Any] | None = getattr(_copies, "tables", None)
    if tables is None or not isinstance(thing, Table):
        return copy.deepcopy(thing, memo)
    if id(thing) not in tables:
        tables[id(thing)] = copy.deepcopy(thing)
    return tables[id(thing)]


_transact_write_items = moto_dynamodb.DynamoDBBackend.transact_write_items


def _transact_copying_each_table_once(self: Any, transact_items: list[dict[str, Any]]) -> None:
    _copies.tables = {}
    try:
        _transact_write_items(self, transact_items)
    finally:
        _copies.tables = None


moto_dynamodb.copy = SimpleNamespace(deepcopy=_deepcopy)  # type: ignore[assignment]
moto_dynamodb.DynamoDBBackend.transact_write_items = _transact_copying_each_table_once  # type: ignore[method-assign]


@pytest.fixture(autouse=True)
def _stdlib_logging_after_each_test():
    """A Lambda function's module, loaded at its cold start, routes the package's logs to
    Powertools' JSON handler and stops them propagating (adapters/observability.lambda_logger);
    each test starts again from stdlib's defaults, so caplog sees every module's records."""
    package = logging.getLogger("agent_memory")
    kept = (package.handlers[:], package.level, package.propagate)
    yield
    package.handlers[:], package.level, package.propagate = kept
