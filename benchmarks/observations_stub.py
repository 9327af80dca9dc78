"""A stand-in for a model-backed post-turn review on LoCoMo: a tiny OpenAI chat-completions
server whose proposals are LoCoMo's own `observation` facts (benchmark data, never product
data), for `locomo.py --target history --fact-keys observations`.

The embedded server's `openai` extraction model (adapters/models/openai_compatible.py) is
pointed at it. To a propose call it answers the conversation's observations citing any message
of the window (the window's message ids are LoCoMo dia_ids, the events' `dia_id` metadata),
each a candidate whose `sources` are its dia_ids in the window; to a decide call, `skip` for
every candidate, so no record is written and only the reviews' fact keys remain. Its figures
are an upper bound of what a model's reviews would give the keys: the observations were
written by a model that read the whole conversation.

It serves one conversation at a time (dia_ids repeat across conversations): the benchmark sets
the next one only after every review of the last is done.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODEL = "locomo-observations"
PROPOSE = "memory_candidates"  # the adapter's json_schema name for propose (_structured.py)
DECIDE = "memory_decisions"
# What prompts.py puts just before the window's JSON line, and before decide's candidates.
WINDOW_HEADER = "Conversation (JSON, one object per message"
CANDIDATES_HEADER = "Candidates with their most similar existing memories (JSON):"
SUMMARY_MAX = 500  # Candidate.summary's max_length
KIND = "fact"  # one of the manifest's default kinds


class StubRequestError(ValueError):
    """A request this stub cannot answer (answered 400, which the adapter reports)."""


def json_after(prompt: str, header: str) -> Any:
    """The JSON on the line after the line starting with `header` (prompts.py writes each
    JSON payload on one line)."""
    lines = prompt.splitlines()
    for i, line in enumerate(lines[:-1]):
        if line.startswith(header):
            return json.loads(lines[i + 1])
    raise StubRequestError(f"no line starting {header!r} in the prompt")


def propose_answer(prompt: str, observations: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The observations citing any message of the window, in the conversation's order, each
    citing only its dia_ids among the window's messages."""
    shown = {m["id"] for m in json_after(prompt, WINDOW_HEADER) if m.get("id")}
    candidates = []
    for obs in observations:
        sources = [d for d in obs["dia_ids"] if d in shown]
        summary = " ".join(obs["text"].split())[:SUMMARY_MAX].strip()
        if sources and summary:
            candidates.append({"summary": summary, "kind": KIND, "sources": sources})
    return {"candidates": candidates}


def decide_answer(prompt: str) -> dict[str, Any]:
    """`skip` for every candidate: the keys are the point here, records are not."""
    items = json_after(prompt, CANDIDATES_HEADER)
    return {
        "decisions": [
            {"candidate": int(item["candidate"]), "action": "skip", "reason": "benchmark stub"}
            for item in items
        ]
    }


def completion(body: dict[str, Any], observations: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """A chat completion answering the request `body` (the adapter's shape: messages and a
    json_schema response_format naming the call), with usage at four characters a token."""
    try:
        name = body["response_format"]["json_schema"]["name"]
        prompt = next(m["content"] for m in body["messages"] if m["role"] == "user")
    except (KeyError, TypeError, StopIteration) as exc:
        raise StubRequestError(f"not a structured chat request: {exc!r}") from exc
    if name == PROPOSE:
        answer = propose_answer(prompt, observations)
    elif name == DECIDE:
        answer = decide_answer(prompt)
    else:
        raise StubRequestError(f"unknown output {name!r}")
    content = json.dumps(answer, ensure_ascii=False)
    sent = sum(len(str(m.get("content", ""))) for m in body["messages"])
    return {
        "id": f"stub-{time.monotonic_ns()}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model") or MODEL,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": max(1, sent // 4),
            "completion_tokens": max(1, len(content) // 4),
            "total_tokens": max(1, sent // 4) + max(1, len(content) // 4),
        },
    }


class ObservationsServer:
    """The stub, served on 127.0.0.1 (a free port) from a thread of this process while entered
    as a context manager."""

    def __init__(self) -> None:
        self._observations: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self.calls = {PROPOSE: 0, DECIDE: 0}
        self._http: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                try:
                    answer = stub.answer(json.loads(raw))
                    status = 200
                except (ValueError, StubRequestError) as exc:  # JSONDecodeError is one
                    answer, status = {"error": {"message": str(exc)}}, 400
                data = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *_args: Any) -> None:
                pass  # one line a review on stderr would bury the benchmark's own

        return Handler

    @property
    def base_url(self) -> str:
        if self._http is None:
            raise RuntimeError("the stub is not serving: enter it first")
        return f"http://127.0.0.1:{self._http.server_address[1]}/v1"

    def serve(self, observations: Sequence[dict[str, Any]]) -> None:
        """Answer from these observations ({"text", "dia_ids"}) from now on."""
        with self._lock:
            self._observations = list(observations)

    def answer(self, body: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            observations = self._observations
        answer = completion(body, observations)
        with self._lock:
            self.calls[body["response_format"]["json_schema"]["name"]] += 1
        return answer

    def env(self) -> dict[str, str]:
        """The embedded server's settings that make its reviews ask this stub."""
        return {
            "AGENT_MEMORY_EXTRACTION_MODEL": "openai",
            "AGENT_MEMORY_OPENAI_BASE_URL": self.base_url,
            "AGENT_MEMORY_OPENAI_MODEL": MODEL,
        }

    def __enter__(self) -> ObservationsServer:
        self._http = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._http.serve_forever, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        assert self._http is not None and self._thread is not None
        self._http.shutdown()
        self._http.server_close()
        self._thread.join(timeout=5)
        self._http = self._thread = None
