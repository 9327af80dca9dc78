"""The rerankers a deployment has (part of the composition root, bootstrap.py): one a provider
the settings configure; an agent's harness.memory.search.rerank picks one and its model."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .domain.kernel.metrics import NO_METRICS, Metrics
from .domain.search import Reranker, RerankStage, Scores
from .settings import Settings


def build_rerank(settings: Settings, metrics: Metrics = NO_METRICS) -> RerankStage:
    """The rerankers this deployment has, one a provider; an agent's manifest picks one. None
    is called until a manifest asks, and a provider left unconfigured is a search that keeps its
    first-stage order (logged), never a failed one."""
    rerankers: dict[str, Reranker] = {}
    timeout = settings.rerank_timeout_seconds
    if settings.region:
        region = settings.region
        rerankers["bedrock"] = _OnFirstUse("bedrock", lambda: _bedrock(region, timeout))
    if settings.rerank_http_base_url:
        from .adapters.rerank.http import HttpReranker

        key = settings.rerank_http_api_key
        rerankers["http"] = HttpReranker(
            base_url=settings.rerank_http_base_url,
            api_key=key.get_secret_value() if key else None,
            field=settings.rerank_http_field,
            timeout_seconds=timeout,
        )
    if settings.rerank_onnx_dir is not None and settings.store == "sqlite":
        # Embedded only: the cloud's layer carries no onnxruntime (it is kept under 50 MB).
        from .adapters.rerank.onnx import OnnxReranker

        rerankers["onnx"] = OnnxReranker(settings.rerank_onnx_dir)
    return RerankStage(rerankers, metrics)


def _bedrock(region: str, timeout: float) -> Reranker:
    from .adapters.rerank.bedrock import BedrockReranker

    return BedrockReranker(region=region, timeout_seconds=timeout)


class _OnFirstUse(Reranker):
    """A reranker built when a search first asks for it: every cloud function has Bedrock's,
    few agents rerank, and its adapter is not a cold start's cost."""

    def __init__(self, provider: str, build: Callable[[], Reranker]) -> None:
        self.provider = provider
        self._build = build
        self._built: Reranker | None = None

    def _reranker(self) -> Reranker:
        if self._built is None:
            self._built = self._build()
        return self._built

    def score(self, model: str, query: str, documents: Sequence[str]) -> Scores:
        return self._reranker().score(model, query, documents)

    def model_id(self, model: str) -> str:
        return self._reranker().model_id(model)
