"""History events too large for a DynamoDB item, kept as S3 objects (history.py writes them).

Objects are written with server-side encryption and never overwritten: each write has a key of
its own (keys.history_object), and an item names the object it points at. An agent's objects all
live under keys.history_prefix, which its delete empties a page at a time.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from ...domain.kernel.errors import StorageUnavailable
from ..aws import LazyClient

logger = logging.getLogger(__name__)

# S3's DeleteObjects takes at most 1,000 keys, as many as a ListObjectsV2 page holds.
_DELETE_BATCH = 1000
# SSE-S3: every object is encrypted at rest with keys S3 manages.
_ENCRYPTION = "AES256"


@contextmanager
def s3_errors() -> Iterator[None]:
    """Turn any S3 or botocore failure escaping the block into StorageUnavailable."""
    from botocore.exceptions import BotoCoreError, ClientError  # type: ignore[import-untyped]

    try:
        yield
    except ClientError as exc:
        code = str(exc.response.get("Error", {}).get("Code") or type(exc).__name__)
        raise StorageUnavailable(
            "S3 did not complete the request; try again", aws_code=code
        ) from exc
    except BotoCoreError as exc:
        raise StorageUnavailable(
            "S3 did not complete the request; try again", aws_code=type(exc).__name__
        ) from exc


class Blobs:
    """The bucket large events go to (None: there is none), and a client made on first use."""

    def __init__(self, bucket: str | None, region: str) -> None:
        self.bucket = bucket
        # Made on first use: a store that never meets a large event never pays for it.
        self._client = LazyClient("s3", region)

    @property
    def client(self) -> Any:
        return self._client.get()

    def put(self, key: str, body: bytes) -> None:
        with s3_errors():
            self.client.put_object(
                Bucket=self._bucket(),
                Key=key,
                Body=body,
                ContentType="application/json",
                ServerSideEncryption=_ENCRYPTION,
            )

    def get(self, bucket: str, key: str) -> bytes:
        with s3_errors():
            body = self.client.get_object(Bucket=bucket, Key=key)["Body"]
            try:
                data: bytes = body.read()
            finally:
                body.close()
            return data

    def discard(self, keys: Sequence[str]) -> None:
        """Delete objects no item points at (a write that lost), logging instead of raising:
        the write's own failure is what the caller reports, and the agent's delete sweeps any
        object left behind."""
        if not keys or self.bucket is None:
            return
        try:
            self._delete(list(keys))
        except StorageUnavailable:
            logger.warning("history objects left behind", extra={"keys": list(keys)})

    def delete_prefix(self, prefix: str) -> None:
        """Delete every object under `prefix`, a page at a time."""
        if self.bucket is None:
            return
        with s3_errors():
            pages = self.client.get_paginator("list_objects_v2").paginate(
                Bucket=self.bucket, Prefix=prefix, PaginationConfig={"PageSize": _DELETE_BATCH}
            )
            for page in pages:
                found = [str(each["Key"]) for each in page.get("Contents", [])]
                if found:
                    self._delete(found)

    def _delete(self, keys: list[str]) -> None:
        for start in range(0, len(keys), _DELETE_BATCH):
            batch = keys[start : start + _DELETE_BATCH]
            with s3_errors():
                result = self.client.delete_objects(
                    Bucket=self._bucket(),
                    Delete={"Objects": [{"Key": key} for key in batch], "Quiet": True},
                )
            if result.get("Errors"):
                codes = sorted({str(error.get("Code")) for error in result["Errors"]})
                raise StorageUnavailable(
                    "S3 did not delete every object; try again", aws_code=",".join(codes)
                )

    def _bucket(self) -> str:
        if self.bucket is None:  # callers check first; this keeps the types honest
            raise StorageUnavailable("no bucket is configured for large history events")
        return self.bucket
