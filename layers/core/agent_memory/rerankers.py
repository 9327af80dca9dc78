"""The rerankers a deployment has (part of the composition root, bootstrap.py): one a provider
the settings configure; an agent's harness.memory.search.rerank picks one and its model."""

from __future__ import annotations

from .domain.kernel.metrics import NO_METRICS, Metrics
from .domain.search import Reranker, RerankStage
from .settings import Settings


def build_rerank(settings: Settings, metrics: Metrics = NO_METRICS) -> RerankStage:
    """The rerankers this deployment has, one a provider; an agent's manifest picks one. None
    is called until a manifest asks, and a provider left unconfigured is a search that keeps its
    first-stage order (logged), never a failed one."""
    rerankers: dict[str, Reranker] = {}
    timeout = settings.rerank_timeout_seconds
    if settings.region:
        from .adapters.rerank.bedrock import BedrockReranker

        rerankers["bedrock"] = BedrockReranker(region=settings.region, timeout_seconds=timeout)
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
