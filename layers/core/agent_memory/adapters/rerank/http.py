"""HttpReranker: any service speaking the common /rerank API.

`POST {base}/rerank` with `{"model", "query", "documents"}` (Cohere, Jina, vLLM, llama.cpp's
server and most hosted rerankers) or `{"query", "texts"}` (Hugging Face text-embeddings-inference:
AGENT_MEMORY_RERANK_HTTP_FIELD=texts). Both answers are read: `{"results": [{"index",
"relevance_score"}]}` and a bare `[{"index", "score"}]`. HTTP goes through urllib (the Lambda
layer carries no HTTP client); `transport` replaces it in tests.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Literal

from agent_memory.domain.search import Reranker, RerankFailed, Scores

from ..http_post import Transport, urllib_post


def urllib_transport(
    url: str, headers: dict[str, str], body: bytes, timeout: float
) -> tuple[int, bytes]:
    return urllib_post(
        url,
        headers,
        body,
        timeout,
        lambda error: RerankFailed(f"the rerank service could not be reached: {error}"),
    )


def rerank_url(base_url: str) -> str:
    base = base_url.rstrip("/")
    return base if base.endswith("/rerank") else base + "/rerank"


class HttpReranker(Reranker):
    provider = "http"

    def __init__(
        self,
        *,
        base_url: str,
        api_key: str | None = None,
        field: Literal["documents", "texts"] = "documents",
        timeout_seconds: float = 2.0,
        transport: Transport | None = None,
    ) -> None:
        self._url = rerank_url(base_url)
        self._api_key = api_key
        self._field = field
        self._timeout = timeout_seconds
        self._transport = transport or urllib_transport

    def score(self, model: str, query: str, documents: Sequence[str]) -> Scores:
        body: dict[str, Any] = {"model": model, "query": query, self._field: list(documents)}
        if self._field == "documents":
            body["top_n"] = len(documents)  # every document scored, not the service's default
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        status, raw = self._transport(self._url, headers, json.dumps(body).encode(), self._timeout)
        if status != 200:
            raise RerankFailed(
                f"the rerank service answered {status}: {raw[:300].decode(errors='replace')}"
            )
        try:
            return read_scores(json.loads(raw), len(documents))
        except ValueError as exc:  # JSONDecodeError is a ValueError
            raise RerankFailed(f"the rerank service's answer is not JSON: {exc}") from exc


def read_scores(answer: Any, count: int) -> Scores:
    """Scores in document order from either answer shape; RerankFailed when one is missing."""
    if isinstance(answer, dict):
        results, tokens = answer.get("results"), _tokens(answer)
    else:
        results, tokens = answer, 0
    if not isinstance(results, list):
        raise RerankFailed("the rerank service's answer has no results list")
    scores: list[float | None] = [None] * count
    for result in results:
        if not isinstance(result, dict):
            raise RerankFailed("a rerank result is not an object")
        index = result.get("index")
        value = result.get("relevance_score", result.get("score"))
        if not isinstance(index, int) or not 0 <= index < count:
            raise RerankFailed(f"a rerank result names no document of the {count} sent")
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise RerankFailed("a rerank result has no numeric score")
        scores[index] = float(value)
    if any(s is None for s in scores):
        raise RerankFailed("the rerank service left documents without a score")
    return Scores([s for s in scores if s is not None], input_tokens=tokens)


def _tokens(answer: dict[str, Any]) -> int:
    """What the service says it read: Jina's and vLLM's usage.total_tokens, or Cohere's
    meta.billed_units (search units, counted as they bill)."""
    usage = answer.get("usage")
    if isinstance(usage, dict) and isinstance(usage.get("total_tokens"), int):
        return int(usage["total_tokens"])
    meta = answer.get("meta")
    billed = meta.get("billed_units") if isinstance(meta, dict) else None
    if isinstance(billed, dict) and isinstance(billed.get("input_tokens"), int):
        return int(billed["input_tokens"])
    return 0
