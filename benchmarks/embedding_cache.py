"""An embedding cache for benchmark runs: each text the server embeds is kept by its sha256, so a
second run over the same data embeds nothing it embedded before.

    .venv/bin/python benchmarks/longmemeval.py --mode hybrid --embedding-cache /tmp/emb.sqlite3 ...
    .venv/bin/python benchmarks/locomo.py --target history --embedding-cache /tmp/emb.sqlite3 ...

A 60-question LongMemEval hybrid run embeds ~30,000 messages: about an hour on this machine's two
cores. Measuring a ranking change on it, and on LoCoMo beside it, is then minutes rather than
hours: only ranking differs between such runs, not what is embedded. The benchmarks start their
embedded server through `serve_cached` (this file run as a script), which wraps the embedder the
server builds in `CachedEmbedder`; nothing else changes. A vector comes back as the model gave
it, and so do the token counts (usage rows and figures are as without the cache). The model
embeds each text alone (mean pooling over its own tokens), so a text's vector does not depend on
the batch it came in, up to float rounding.

A benchmark tool, never product code: the server as shipped embeds what it is asked to.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agent_memory.domain.search.embeddings import Embedder, Embedding


class CachedEmbedder(Embedder):
    """`inner`, with each text's vector and token count kept in an SQLite file by the sha256 of
    the model id and the text. Several processes may share one file (WAL; each write commits)."""

    def __init__(self, inner: Embedder, path: Path) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.dimensions = inner.dimensions
        self.hits = 0
        self.misses = 0
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(path, timeout=60.0, check_same_thread=False)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute(
            "CREATE TABLE IF NOT EXISTS vectors "
            "(key BLOB PRIMARY KEY, vector BLOB NOT NULL, tokens INTEGER NOT NULL)"
        )
        self._conn.commit()

    def _key(self, text: str, query: bool) -> bytes:
        # A model may embed a query unlike a document of the same words (MiniLM does not).
        return hashlib.sha256(f"{self.model_id}\0{int(query)}\0{text}".encode()).digest()

    def embed(self, texts: Sequence[str], *, query: bool = False) -> Embedding:
        import numpy as np

        keys = [self._key(t, query) for t in texts]
        with self._lock:
            found: dict[bytes, tuple[bytes, int]] = {}
            for start in range(0, len(keys), 500):
                chunk = keys[start : start + 500]
                marks = ",".join("?" * len(chunk))
                for key, vector, tokens in self._conn.execute(
                    f"SELECT key, vector, tokens FROM vectors WHERE key IN ({marks})",  # noqa: S608
                    chunk,
                ):
                    found[key] = (vector, tokens)
        missing = [i for i, key in enumerate(keys) if key not in found]
        vectors = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        tokens = [0] * len(texts)
        if missing:
            fresh = self.inner.embed([texts[i] for i in missing], query=query)
            counts = fresh.tokens_of([texts[i] for i in missing])
            rows = []
            for row, i in enumerate(missing):
                vector = np.asarray(fresh.vectors[row], dtype=np.float32)
                found[keys[i]] = (vector.tobytes(), counts[row])
                rows.append((keys[i], vector.tobytes(), counts[row]))
            with self._lock:
                self._conn.executemany("INSERT OR IGNORE INTO vectors VALUES (?, ?, ?)", rows)
                self._conn.commit()
        for i, key in enumerate(keys):
            vector, count = found[key]
            vectors[i] = np.frombuffer(vector, dtype=np.float32)
            tokens[i] = count
        self.hits += len(texts) - len(missing)
        self.misses += len(missing)
        return Embedding(
            vectors=vectors, model_id=self.model_id, input_tokens=sum(tokens), tokens=tokens
        )


def serve_cached(path: Path, argv: list[str]) -> Any:
    """`agent-memory <argv>` with the embedder the server builds wrapped in `CachedEmbedder`."""
    from agent_memory import bootstrap, cli

    build = bootstrap.build_embedder

    def cached(settings: Any) -> Embedder | None:
        inner = build(settings)
        return None if inner is None else CachedEmbedder(inner, path)

    bootstrap.build_embedder = cached
    return cli.main(argv)


if __name__ == "__main__":
    # embedding_cache.py CACHE_FILE serve --port ... (as `agent-memory serve --port ...`)
    if os.environ.get("FUSION_TRACE"):
        # benchmarks/train_fusion.py's runs: each history search's candidates to this file.
        from fusion_trace import trace_to

        trace_to(Path(os.environ["FUSION_TRACE"]))
    sys.exit(serve_cached(Path(sys.argv[1]), sys.argv[2:]))
