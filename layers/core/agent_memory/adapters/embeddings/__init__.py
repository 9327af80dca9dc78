"""Adapters of the Embedder port: `LocalEmbedder` (in process) and `BedrockEmbedder` (AWS).

Each is imported on first use, so importing this package loads neither onnxruntime nor boto3.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent_memory.adapters.embeddings.bedrock import BedrockEmbedder, EmbeddingUnavailable
    from agent_memory.adapters.embeddings.local import LocalEmbedder, ModelFileError

__all__ = ["BedrockEmbedder", "EmbeddingUnavailable", "LocalEmbedder", "ModelFileError"]

_MODULES = {
    "BedrockEmbedder": "bedrock",
    "EmbeddingUnavailable": "bedrock",
    "LocalEmbedder": "local",
    "ModelFileError": "local",
}


def __getattr__(name: str) -> Any:
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{module}"), name)
