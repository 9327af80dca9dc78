"""One call to an OpenAI-compatible /v1/chat/completions endpoint for a JSON-schema structured
output, as the extraction model (openai_compatible.py) and the entity model (entities.py) make
it. The request is the same for both; what a refusal or an answer that is not a chat completion
raises is each caller's (its own error, its own words), so each passes its own."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..http_post import Transport
from ._structured import estimate_tokens


@dataclass(frozen=True)
class Completion:
    """A chat completion: the message's content as the server sent it ("" when it has none)
    and the whole response, which names the model and the tokens it counted."""

    content: Any
    response: dict[str, Any]

    def model_id(self, asked: str) -> str:
        """The model the server says answered; the one asked for when it names none."""
        return str(self.response.get("model") or asked)

    def tokens(self, estimated_input: int, reply: Any) -> tuple[int, int]:
        """(input, output) tokens as the server reports them; where it reports none, the input
        is `estimated_input` and the output estimated from `reply`."""
        reported = self.response.get("usage") or {}
        return (
            int(reported.get("prompt_tokens") or estimated_input),
            int(reported.get("completion_tokens") or estimate_tokens(reply)),
        )


def post_chat(
    transport: Transport,
    url: str,
    api_key: str | None,
    timeout: float,
    *,
    model: str,
    messages: list[dict[str, str]],
    temperature: float,
    max_tokens: int,
    schema_name: str,
    schema: dict[str, Any],
    refused: Callable[[int, bytes], Exception],
    malformed: Callable[[Exception], Exception],
) -> Completion:
    """POST `messages` asking for a reply of `schema`. An answer other than 200 raises
    `refused(status, body)`; one that is not a chat completion raises `malformed(error)`. What
    `transport` raises (a server that cannot be reached) is raised as it is."""
    body = {
        "model": model,
        "messages": messages,
        "temperature": temperature,
        "max_tokens": max_tokens,
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": schema_name, "schema": schema},
        },
    }
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    status, raw = transport(url, headers, json.dumps(body).encode(), timeout)
    if status != 200:
        raise refused(status, raw)
    try:
        response = json.loads(raw)
        content = response["choices"][0]["message"].get("content") or ""
    except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
        raise malformed(exc) from exc
    return Completion(content, response)
