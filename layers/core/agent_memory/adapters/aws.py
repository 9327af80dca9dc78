"""A boto3 client made on first use: a cold start that never needs it never pays for importing
boto3 and building it. Tests pass a client of their own (botocore Stubber, moto)."""

from __future__ import annotations

import threading
from typing import Any

from ..domain.kernel.restore import on_restore


class LazyClient:
    def __init__(self, service: str, region: str | None, client: Any = None, **config: Any) -> None:
        self._service = service
        self._region = region
        self._config = config
        self._client = client
        self._made = False
        self._lock = threading.Lock()
        on_restore(self.forget)

    def get(self) -> Any:
        if self._client is None:
            with self._lock:
                if self._client is None:
                    import boto3
                    from botocore.config import Config

                    self._client = boto3.client(
                        self._service,
                        region_name=self._region,
                        config=Config(**self._config) if self._config else None,
                    )
                    self._made = True
        return self._client

    def forget(self) -> None:
        """Drop a client this made (after a restore from a snapshot: its pooled sockets are
        dead and its credentials were the snapshot's); the next use makes a new one. A client
        handed in is the caller's and is kept."""
        with self._lock:
            if self._made:
                self._client, self._made = None, False
