"""A real HTTP rerank service for tests, on a loopback port: `POST /rerank` scores each document
by how often it says the marker (default "zebra"), answering as Cohere, Jina and vLLM do
(`{"results": [{"index", "relevance_score"}]}`, for a body with `documents`) or as
text-embeddings-inference does (`[{"index", "score"}]`, for a body with `texts`). `fail` makes
it answer 503, `slow` sleep that many seconds first, `garbage` answer something not JSON."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class RerankServer:
    url: str = ""
    marker: str = "zebra"
    fail: bool = False
    slow: float = 0.0
    garbage: bool = False
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)

    def answer(self, body: dict[str, Any]) -> tuple[int, bytes]:
        if self.slow:
            time.sleep(self.slow)
        if self.fail:
            return 503, b'{"error": "overloaded"}'
        if self.garbage:
            return 200, b"<html>not a rerank</html>"
        texts = body.get("documents", body.get("texts"))
        scores = [float(str(t).count(self.marker)) for t in texts]
        best_first = sorted(range(len(scores)), key=lambda i: -scores[i])
        if "texts" in body:
            return 200, json.dumps([{"index": i, "score": scores[i]} for i in best_first]).encode()
        results = [{"index": i, "relevance_score": scores[i]} for i in best_first]
        usage = {"total_tokens": sum(len(str(t).split()) for t in texts)}
        return 200, json.dumps(
            {"model": body.get("model"), "results": results, "usage": usage}
        ).encode()


@contextmanager
def rerank_server() -> Iterator[RerankServer]:
    state = RerankServer()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            body = json.loads(raw)
            state.requests.append({"path": self.path, **body})
            state.headers.append(dict(self.headers))
            status, answer = state.answer(body)
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
