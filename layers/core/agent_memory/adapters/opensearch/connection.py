"""`connect`: an OpenSearchIndex on an AOSS collection, its client built on first use.

opensearch-py and boto3 are imported only when the client is built, so importing this module
costs nothing.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from ...domain.kernel.restore import on_restore
from .index import OpenSearchIndex


class _ClientOnFirstUse:
    """Stands in for the OpenSearch client and builds it on first use: an API cold start whose
    route never searches pays nothing for opensearch-py, requests and a boto3 session (~150 ms
    of imports). Thread-safe: the embedded and Lambda shapes may search from several threads."""

    def __init__(self, build: Callable[[], Any]) -> None:
        self._build = build
        self._built: Any = None
        self._lock = threading.Lock()
        on_restore(self.forget)

    def forget(self) -> None:
        """Drop the client (after a restore from a snapshot: its connections are dead and it
        signs with the credentials it read before the snapshot); the next use builds another."""
        with self._lock:
            self._built = None

    def __getattr__(self, name: str) -> Any:
        # Only called for names this object lacks, that is every attribute of the client.
        if self._built is None:
            with self._lock:
                if self._built is None:
                    self._built = self._build()
        return getattr(self._built, name)


def connect(
    endpoint: str,
    region: str,
    index_name: str,
    dimensions: int,
    *,
    model_id: str | None = None,
    pool_maxsize: int = 10,
    timeout: float = 10.0,
) -> OpenSearchIndex:
    """An OpenSearchIndex on an AOSS collection endpoint, requests signed with SigV4 (`aoss`)
    from the environment's credentials (the Lambda role). Builds nothing and sends nothing: the
    client is built on the index's first request (no credentials then is a ValueError)."""

    def build() -> Any:
        import boto3  # type: ignore[import-untyped]
        from opensearchpy import AWSV4SignerAuth, OpenSearch, RequestsHttpConnection

        credentials = boto3.Session().get_credentials()
        if credentials is None:
            raise ValueError("no AWS credentials to sign OpenSearch requests with")
        host = endpoint.removeprefix("https://").removeprefix("http://").rstrip("/")
        return OpenSearch(
            hosts=[{"host": host, "port": 443}],
            http_auth=AWSV4SignerAuth(credentials, region, "aoss"),
            use_ssl=True,
            verify_certs=True,
            connection_class=RequestsHttpConnection,
            pool_maxsize=pool_maxsize,
            timeout=timeout,
            # AOSS answers 429 while it scales; the client retries it like a 502/503/504.
            retry_on_status=(429, 502, 503, 504),
            max_retries=2,
        )

    return OpenSearchIndex(_ClientOnFirstUse(build), index_name, dimensions, model_id=model_id)
