"""Count what an operation costs in AWS calls, under moto: every botocore request by service and
operation, DynamoDB read and write units, OpenSearch requests, and Bedrock calls and tokens.

Used by tests/integration/test_aws_calls.py (which holds the important counts) and by
benchmarks/aws_calls.py (which writes the whole table).

- botocore: `BaseClient._make_api_call` is wrapped while the meter is installed, so pynamodb's
  and boto3's clients alike are counted.
- DynamoDB capacity: moto answers ReturnConsumedCapacity with fixed figures whatever the item
  (moto 5.2.5, `dynamodb/responses.py`), so units are priced here from item sizes by DynamoDB's
  rules (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/
  read-write-operations.html): a write is 1 unit per KB of the larger of the item before and
  after it, rounded up (transactional: 2); a read is 1 unit per 4 KB (eventually consistent:
  half; transactional: 2), a Query's items summed before rounding, a batch's rounded each. The
  sizes read are the whole items, so a projected Query is priced as DynamoDB prices it.
- Bedrock has no moto backend: InvokeModel (Titan embeddings) is answered here,
  before any request leaves, with a vector of the asked size and a token count estimated as one
  token per 4 characters (Titan's own count differs a little); each answered call is counted.
- DynamoDB Streams: moto 5.2.5 answers DescribeStream with 404 "Not yet implemented" (with
  botocore 1.44), so the stream records each write would put on the table's stream
  (NEW_AND_OLD_IMAGES) are made here from the items before and after it (`take_stream`).
- OpenSearch: `count_opensearch(client)` wraps the client's transport. osmem-server (the engine
  the tests run) has no k-NN, so a k-NN search is counted and answered with no hits.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

WRITES = {"PutItem", "UpdateItem", "DeleteItem", "TransactWriteItems", "BatchWriteItem"}
READS = {"GetItem", "Query", "Scan", "BatchGetItem", "TransactGetItems"}


# -- item sizes (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/
#    CapacityUnitCalculations.html) -------------------------------------------------------


def value_bytes(value: dict[str, Any]) -> int:
    ((kind, raw),) = value.items()
    if kind == "S":
        return len(raw.encode())
    if kind == "N":
        digits = raw.lstrip("-").replace(".", "").lstrip("0") or "0"
        return (len(digits) + 1) // 2 + 1
    if kind == "B":
        return len(raw)
    if kind in ("BOOL", "NULL"):
        return 1
    if kind in ("SS", "NS", "BS"):
        return sum(value_bytes({kind[0]: v}) for v in raw)
    if kind == "L":
        return 3 + sum(1 + value_bytes(v) for v in raw)
    if kind == "M":
        return 3 + sum(1 + len(k.encode()) + value_bytes(v) for k, v in raw.items())
    raise ValueError(kind)


def item_bytes(item: dict[str, Any] | None) -> int:
    return sum(len(name.encode()) + value_bytes(value) for name, value in (item or {}).items())


def units(size: int, per: int = 1024) -> int:
    return max(1, math.ceil(size / per))


@dataclass
class Tally:
    """What was spent while counting."""

    calls: Counter[str] = field(default_factory=Counter)  # "service.Operation"
    read_units: float = 0.0
    write_units: float = 0.0
    stored_bytes: int = 0  # what the table holds more (or less) afterwards, by item sizes
    # "search" | "statistics" | "knn" | "bulk" | ...
    opensearch: Counter[str] = field(default_factory=Counter)
    bulk_items: int = 0
    event_entries: int = 0
    transact_items: list[int] = field(default_factory=list)  # items of each TransactWriteItems
    embed_tokens: int = 0

    def count(self, name: str) -> int:
        return self.calls[name]

    def as_dict(self) -> dict[str, Any]:
        return {
            "calls": dict(sorted(self.calls.items())),
            "dynamodb_read_units": round(self.read_units, 1),
            "dynamodb_write_units": round(self.write_units, 1),
            "dynamodb_stored_bytes": self.stored_bytes,
            "opensearch": dict(sorted(self.opensearch.items())),
            "opensearch_bulk_items": self.bulk_items,
            "eventbridge_entries": self.event_entries,
            "transact_items": self.transact_items,
            "bedrock_embed_tokens": self.embed_tokens,
        }


def fake_vector(text: str, dimensions: int) -> list[float]:
    """A unit vector from the text's hash: stable, so equal texts embed alike."""
    seed = hashlib.sha256(text.encode()).digest()
    raw = [(seed[i % len(seed)] - 127.5) for i in range(dimensions)]
    norm = math.sqrt(sum(v * v for v in raw)) or 1.0
    return [v / norm for v in raw]


def tokens_of(text: str) -> int:
    return max(1, math.ceil(len(text) / 4))


class AwsMeter:
    """While installed, counts every AWS call into `tally` (thread-safe)."""

    def __init__(self, table: str) -> None:
        self.table = table
        self.tally = Tally()
        self._lock = threading.Lock()
        self._local = threading.local()
        self._sequence = 0
        self.stream: list[dict[str, Any]] = []

    def take(self) -> Tally:
        """What was counted since the last take, and start again."""
        with self._lock:
            taken, self.tally = self.tally, Tally()
        return taken

    @contextmanager
    def installed(self) -> Iterator[AwsMeter]:
        import botocore.client

        original = botocore.client.BaseClient._make_api_call
        meter = self

        def metered(client: Any, operation: str, params: dict[str, Any]) -> Any:
            service = client.meta.service_model.service_name
            if getattr(meter._local, "inside", False):
                return original(client, operation, params)
            meter._local.inside = True
            try:
                return meter._call(original, client, service, operation, params)
            finally:
                meter._local.inside = False

        botocore.client.BaseClient._make_api_call = metered  # type: ignore[method-assign]
        try:
            yield self
        finally:
            botocore.client.BaseClient._make_api_call = original  # type: ignore[method-assign]

    @contextmanager
    def paused(self) -> Iterator[None]:
        """Calls made inside are not counted (the harness's own reads, Lambda's stream polling)."""
        was = getattr(self._local, "inside", False)
        self._local.inside = True
        try:
            yield
        finally:
            self._local.inside = was

    # -- one call ---------------------------------------------------------------------------

    def _call(
        self, original: Any, client: Any, service: str, operation: str, params: dict[str, Any]
    ) -> Any:
        with self._lock:
            self.tally.calls[f"{service}.{operation}"] += 1
            if operation == "PutEvents":
                self.tally.event_entries += len(params["Entries"])
            if operation == "TransactWriteItems":
                self.tally.transact_items.append(len(params["TransactItems"]))
        if service == "bedrock-runtime":
            return self._bedrock(operation, params)
        if service != "dynamodb" or operation not in WRITES | READS:
            return original(client, operation, params)
        before = self._items(client, operation, params) if operation in WRITES else []
        response = original(client, operation, params)
        if operation in WRITES:
            after = self._items(client, operation, params)
            sizes = [item_bytes(i) for i in before], [item_bytes(i) for i in after]
            spent = self._write_units(operation, params, *sizes)
            with self._lock:
                self.tally.write_units += spent
                self.tally.stored_bytes += sum(sizes[1]) - sum(sizes[0])
                self._stream(self._keys(operation, params), before, after)
        else:
            spent = self._read_units(operation, params, response)
            with self._lock:
                self.tally.read_units += spent
        return response

    def _bedrock(self, operation: str, params: dict[str, Any]) -> dict[str, Any]:
        if operation == "InvokeModel":
            body = json.loads(params["body"])
            tokens = tokens_of(body["inputText"])
            with self._lock:
                self.tally.embed_tokens += tokens
            answer = {
                "embedding": fake_vector(body["inputText"], int(body.get("dimensions", 1024))),
                "inputTextTokenCount": tokens,
            }
            return {"body": io.BytesIO(json.dumps(answer).encode()), "contentType": "json"}
        raise NotImplementedError(f"bedrock-runtime {operation} is not answered by the meter")

    # -- DynamoDB units ---------------------------------------------------------------------

    def _keys(self, operation: str, params: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
        """(action, key) of each item a write touches."""
        if operation in ("PutItem", "UpdateItem", "DeleteItem"):
            key = params.get("Key") or self._key_of(params["Item"])
            return [(operation, key)]
        if operation == "BatchWriteItem":
            found = []
            for requests in params["RequestItems"].values():
                for request in requests:
                    if "PutRequest" in request:
                        found.append(("Put", self._key_of(request["PutRequest"]["Item"])))
                    else:
                        found.append(("Delete", request["DeleteRequest"]["Key"]))
            return found
        found = []
        for action in params["TransactItems"]:
            ((kind, body),) = action.items()
            found.append((kind, body.get("Key") or self._key_of(body["Item"])))
        return found

    @staticmethod
    def _key_of(item: dict[str, Any]) -> dict[str, Any]:
        return {name: item[name] for name in ("pk", "sk") if name in item}

    def _items(self, client: Any, operation: str, params: dict[str, Any]) -> list[Any]:
        """The current item at each key a write touches (None where there is none)."""
        found = []
        for _, key in self._keys(operation, params):
            got = client.get_item(TableName=self.table, Key=key, ConsistentRead=True)
            found.append(got.get("Item"))
        return found

    def _stream(self, keys: list[tuple[str, Any]], before: list[Any], after: list[Any]) -> None:
        """The table's stream records of a write, as DynamoDB Streams (NEW_AND_OLD_IMAGES)
        would emit them: one for each item the write changed."""
        for (_, key), old, new in zip(keys, before, after, strict=True):
            if old == new:
                continue
            name = "INSERT" if old is None else "REMOVE" if new is None else "MODIFY"
            self._sequence += 1
            record: dict[str, Any] = {
                "eventID": str(self._sequence),
                "eventName": name,
                "eventSource": "aws:dynamodb",
                "eventVersion": "1.1",
                "awsRegion": "us-east-1",
                "dynamodb": {
                    "Keys": key,
                    "SequenceNumber": f"{self._sequence:021d}",
                    "SizeBytes": item_bytes(new or old),
                    "StreamViewType": "NEW_AND_OLD_IMAGES",
                },
            }
            if new is not None:
                record["dynamodb"]["NewImage"] = new
            if old is not None:
                record["dynamodb"]["OldImage"] = old
            self.stream.append(record)

    def take_stream(self) -> list[dict[str, Any]]:
        with self._lock:
            taken, self.stream = self.stream, []
        return taken

    def _write_units(
        self, operation: str, params: dict[str, Any], before: list[int], after: list[int]
    ) -> float:
        factor = 2 if operation == "TransactWriteItems" else 1
        spent = 0
        for (action, key), was, now in zip(
            self._keys(operation, params), before, after, strict=True
        ):
            size = max(was, now, item_bytes(key))
            if action == "Put" or action == "PutItem":
                body = self._put_item(operation, params, key)
                size = max(was, item_bytes(body))
            spent += factor * units(size, 1024)
        return float(spent)

    def _put_item(self, operation: str, params: dict[str, Any], key: dict[str, Any]) -> Any:
        if operation == "PutItem":
            return params["Item"]
        items = (
            [a["Put"]["Item"] for a in params["TransactItems"] if "Put" in a]
            if operation == "TransactWriteItems"
            else [
                r["PutRequest"]["Item"]
                for rs in params["RequestItems"].values()
                for r in rs
                if "PutRequest" in r
            ]
        )
        return next(i for i in items if self._key_of(i) == key)

    @staticmethod
    def _read_units(operation: str, params: dict[str, Any], response: dict[str, Any]) -> float:
        half = 0.5
        if operation == "GetItem":
            per = 1.0 if params.get("ConsistentRead") else half
            return per * units(item_bytes(response.get("Item")), 4096)
        if operation in ("Query", "Scan"):
            per = 1.0 if params.get("ConsistentRead") else half
            size = sum(item_bytes(item) for item in response.get("Items", []))
            return per * units(size, 4096)
        if operation == "TransactGetItems":
            return sum(
                2.0 * units(item_bytes(r.get("Item")), 4096) for r in response.get("Responses", [])
            )
        spent = 0.0
        for table, items in response.get("Responses", {}).items():
            consistent = params["RequestItems"].get(table, {}).get("ConsistentRead")
            for item in items:
                spent += (1.0 if consistent else half) * units(item_bytes(item), 4096)
        return spent

    # -- OpenSearch -------------------------------------------------------------------------

    def count_opensearch(self, client: Any) -> Any:
        """Wrap an opensearch-py client's transport so each HTTP request it sends is counted."""
        transport = client.transport
        original = transport.perform_request
        meter = self

        def perform_request(method: str, url: str, *args: Any, **kwargs: Any) -> Any:
            body = kwargs.get("body")
            kind = _request_kind(method, url, body)
            with meter._lock:
                meter.tally.opensearch[kind] += 1
                if kind == "bulk":
                    meter.tally.bulk_items += sum(1 for line in _lines(body) if _is_action(line))
            if kind == "knn":
                return {"hits": {"hits": []}}
            return original(method, url, *args, **kwargs)

        transport.perform_request = perform_request
        return client


def _lines(body: Any) -> list[Any]:
    """A bulk body's lines, as opensearch-py sends it (newline-delimited JSON) or as given."""
    if isinstance(body, bytes):
        body = body.decode()
    if isinstance(body, str):
        return [json.loads(line) for line in body.splitlines() if line.strip()]
    return list(body or [])


def _is_action(line: Any) -> bool:
    return isinstance(line, dict) and len(line) == 1 and next(iter(line)) in ("index", "delete")


def _request_kind(method: str, url: str, body: Any) -> str:
    if url.endswith("/_bulk"):
        return "bulk"
    if url.endswith("/_search"):
        text = json.dumps(body) if body is not None else ""
        if '"knn"' in text:
            return "knn"
        if '"holding"' in text:
            return "statistics"  # the lexical half's count of the agent's words (bm25.py)
        return "copies" if '"search_after"' in text or '"sort"' in text else "search"
    return f"{method.lower()} {url.rsplit('/', 1)[-1] or '/'}"
