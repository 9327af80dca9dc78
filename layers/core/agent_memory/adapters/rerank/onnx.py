"""OnnxReranker: a cross-encoder exported to ONNX, run in process on onnxruntime.

The deployment gives a directory (AGENT_MEMORY_RERANK_ONNX_DIR); the manifest's `model` names a
directory under it holding `model.onnx` and its `tokenizer.json` (a Hugging Face cross-encoder
such as cross-encoder/ms-marco-MiniLM-L6-v2, exported with optimum). Nothing is downloaded: a
model is what the operator put there. Each (query, document) pair is one input row, truncated to
`MAX_TOKENS`; the score is the model's relevance logit (its last column, for a model with two).
A model is loaded on its first rerank and kept.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_memory.domain.search import Reranker, RerankFailed, Scores

logger = logging.getLogger(__name__)

MAX_TOKENS = 512
BATCH_SIZE = 16
MODEL_FILE = "model.onnx"
TOKENIZER_FILE = "tokenizer.json"

# A path to model.onnx -> an onnxruntime InferenceSession (or what tests give in its place).
SessionFactory = Callable[[Path], Any]


def onnxruntime_session(path: Path) -> Any:
    import onnxruntime

    options = onnxruntime.SessionOptions()
    # The service's requests share the machine: one model call must not take every core.
    options.intra_op_num_threads = 2
    return onnxruntime.InferenceSession(
        str(path), sess_options=options, providers=["CPUExecutionProvider"]
    )


@dataclass(frozen=True)
class _Loaded:
    session: Any
    tokenizer: Any
    inputs: frozenset[str]


class OnnxReranker(Reranker):
    provider = "onnx"

    def __init__(self, root: Path, session_factory: SessionFactory = onnxruntime_session) -> None:
        self._root = root.resolve()
        self._session_factory = session_factory
        self._loaded: dict[str, _Loaded] = {}
        self._lock = threading.Lock()

    def model_dir(self, model: str) -> Path:
        """The model's directory, never outside the root the deployment gave."""
        path = (self._root / model).resolve()
        if not path.is_relative_to(self._root) or path == self._root:
            raise RerankFailed(f"onnx model {model!r} is not a directory under the model root")
        return path

    def score(self, model: str, query: str, documents: Sequence[str]) -> Scores:
        import numpy as np

        loaded = self._model(model)
        scores: list[float] = []
        tokens = 0
        for start in range(0, len(documents), BATCH_SIZE):
            batch = documents[start : start + BATCH_SIZE]
            encodings = loaded.tokenizer.encode_batch([(query, text) for text in batch])
            ids = np.array([e.ids for e in encodings], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
            tokens += int(mask.sum())
            feeds = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in loaded.inputs:
                feeds["token_type_ids"] = np.array([e.type_ids for e in encodings], dtype=np.int64)
            try:
                (logits, *_) = loaded.session.run(None, feeds)
            except Exception as exc:  # noqa: BLE001 - onnxruntime raises bare Exception subclasses
                raise RerankFailed(f"onnx model {model!r} failed to score: {exc}") from exc
            logits = np.asarray(logits, dtype=np.float32)
            if logits.ndim == 1:
                logits = logits[:, None]
            if logits.ndim != 2 or logits.shape[0] != len(batch):
                raise RerankFailed(
                    f"onnx model {model!r} gave logits of shape {logits.shape} for "
                    f"{len(batch)} pairs: not a cross-encoder"
                )
            scores += [float(v) for v in logits[:, -1]]
        return Scores(scores, input_tokens=tokens)

    def _model(self, model: str) -> _Loaded:
        loaded = self._loaded.get(model)
        if loaded is not None:
            return loaded
        with self._lock:
            if model not in self._loaded:
                self._loaded[model] = self._load(model)
            return self._loaded[model]

    def _load(self, model: str) -> _Loaded:
        from tokenizers import Tokenizer

        directory = self.model_dir(model)
        missing = [f for f in (MODEL_FILE, TOKENIZER_FILE) if not (directory / f).is_file()]
        if missing:
            raise RerankFailed(f"onnx model {model!r} has no {' or '.join(missing)}")
        try:
            tokenizer = Tokenizer.from_file(str(directory / TOKENIZER_FILE))
            session = self._session_factory(directory / MODEL_FILE)
        # tokenizers and onnxruntime raise bare Exception subclasses (a missing, truncated or
        # foreign file): there is nothing narrower to catch.
        except Exception as exc:  # noqa: BLE001
            raise RerankFailed(f"onnx model {model!r} would not load: {exc}") from exc
        tokenizer.enable_truncation(MAX_TOKENS)
        tokenizer.enable_padding()
        inputs = frozenset(i.name for i in session.get_inputs())
        if not {"input_ids", "attention_mask"} <= inputs:
            raise RerankFailed(
                f"onnx model {model!r} takes {sorted(inputs)}, not input_ids and attention_mask"
            )
        logger.info("onnx reranker loaded", extra={"model": model})
        return _Loaded(session, tokenizer, inputs)
