"""A boto3 client made on first use: a cold start that never needs it never pays for importing
boto3 and building it. Tests pass a client of their own (botocore Stubber, moto)."""

from __future__ import annotations

import threading
from typing import Any


class LazyClient:
    def __init__(self, service: str, region: str | None, client: Any = None, **config: Any) -> None:
        self._service = service
        self._region = region
        self._config = config
        self._client = client
        self._lock = threading.Lock()

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
        return self._client
