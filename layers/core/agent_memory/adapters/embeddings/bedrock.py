"""BedrockEmbedder: Amazon Titan Text Embeddings V2 through bedrock-runtime InvokeModel."""

from __future__ import annotations

import json
import logging
import math
from array import array
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from agent_memory.adapters.aws import LazyClient
from agent_memory.domain.kernel.errors import DomainError
from agent_memory.domain.search.embeddings import Embedder, Embedding

logger = logging.getLogger(__name__)

TITAN_TEXT_V2 = "amazon.titan-embed-text-v2:0"
TITAN_DIMENSIONS = (256, 512, 1024)


class EmbeddingUnavailable(DomainError):
    """The embedding service refused or failed; the caller may retry."""

    status = 503
    code = "embedding_unavailable"


class BedrockEmbedder(Embedder):
    """Titan Text Embeddings V2 vectors of 256, 512 or 1024 dimensions.

    Titan V2 takes one text per call, so a batch is sent as parallel calls on at most
    `max_concurrency` threads (botocore clients are thread-safe). Retries of throttled calls are
    botocore's. `client` is a `bedrock-runtime` client; without one, a client is created on first
    use, in `region` or the environment's default region.
    """

    def __init__(
        self,
        *,
        dimensions: int = 1024,
        client: Any = None,
        region: str | None = None,
        model_id: str = TITAN_TEXT_V2,
        max_concurrency: int = 4,
    ) -> None:
        if dimensions not in TITAN_DIMENSIONS:
            raise ValueError(f"dimensions must be one of {TITAN_DIMENSIONS}, not {dimensions!r}")
        if max_concurrency < 1:
            raise ValueError("max_concurrency must be at least 1")
        self.model_id = model_id
        self.dimensions = dimensions
        self._max_concurrency = max_concurrency
        self._client = LazyClient(
            "bedrock-runtime",
            region,
            client,
            retries={"mode": "standard", "max_attempts": 2},
            # One text's embedding takes well under a second: fail fast inside the API's 29 s
            # (botocore's default read timeout is 60 s).
            connect_timeout=2,
            read_timeout=8,
            max_pool_connections=max(10, max_concurrency),
        )

    def embed(self, texts: Sequence[str], *, query: bool = False) -> Embedding:
        # Titan V2 has no separate query mode, so `query` changes nothing here.
        if len(texts) <= 1:
            results = [self._invoke(text) for text in texts]
        else:
            with ThreadPoolExecutor(
                max_workers=min(self._max_concurrency, len(texts)),
                thread_name_prefix="bedrock-embed",
            ) as pool:
                futures = [pool.submit(self._invoke, text) for text in texts]
                try:
                    results = [future.result() for future in futures]
                except BaseException:
                    pool.shutdown(wait=True, cancel_futures=True)
                    raise
        # Plain float32 rows, not numpy: the Lambda layer ships without numpy (67 MB unzipped),
        # and a few vectors of a request need no array maths.
        vectors = [unit_float32(vector, self.dimensions) for vector, _ in results]
        tokens = sum(count for _, count in results)
        return Embedding(vectors=vectors, model_id=self.model_id, input_tokens=tokens)

    def _invoke(self, text: str) -> tuple[list[float], int]:
        body = {"inputText": text, "dimensions": self.dimensions, "normalize": True}
        try:
            response = self._bedrock().invoke_model(
                modelId=self.model_id,
                body=json.dumps(body),
                contentType="application/json",
                accept="application/json",
            )
        except ClientError as exc:
            error = exc.response.get("Error", {})
            logger.warning(
                "bedrock embedding failed",
                extra={"model_id": self.model_id, "aws_error_code": error.get("Code")},
            )
            raise EmbeddingUnavailable("the embedding service is unavailable") from exc
        except BotoCoreError as exc:
            logger.warning(
                "bedrock embedding failed",
                extra={"model_id": self.model_id, "error": type(exc).__name__},
            )
            raise EmbeddingUnavailable("the embedding service is unavailable") from exc
        payload = json.loads(response["body"].read())
        return payload["embedding"], int(payload.get("inputTextTokenCount", 0))

    def _bedrock(self) -> Any:
        return self._client.get()


def unit_float32(vector: Sequence[float], dimensions: int) -> array[float]:
    """`vector` scaled to length 1 (Titan normalises when asked; doing it again keeps the port's
    promise exact), as float32."""
    if len(vector) != dimensions:
        raise EmbeddingUnavailable(
            f"the embedding service returned {len(vector)} dimensions, not {dimensions}"
        )
    norm = max(math.sqrt(math.fsum(x * x for x in vector)), 1e-12)
    return array("f", (x / norm for x in vector))
