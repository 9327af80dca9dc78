"""OpenAICompatibleModel: any /v1/chat/completions endpoint (OpenAI, or a local model server
such as llama.cpp, vLLM or Ollama) with JSON-schema structured output.

Local models often break structured output, so a reply that is not JSON matching the schema
gets ONE repair retry: the bad reply is sent back with the error, asking for valid JSON. A
second bad reply raises ModelOutputInvalid. Each call, the retry included, is one usage entry
(`usage.prompt_tokens` / `usage.completion_tokens`; estimated at four characters per token if
the server reports none). HTTP goes through urllib; `transport` replaces it in tests.
"""

from __future__ import annotations

import logging
from typing import Any, TypeVar

from pydantic import ValidationError

from agent_memory.domain.extraction.model import (
    ModelOutputInvalid,
    ModelResult,
    ModelUnavailable,
    ModelUsage,
)
from agent_memory.domain.extraction.prompts import (
    repair_prompt,
)

from ..http_post import Transport, urllib_post
from ._structured import Output, StructuredModel, loads_reply
from .chat_completions import post_chat

logger = logging.getLogger(__name__)

T = TypeVar("T")


def urllib_transport(
    url: str, headers: dict[str, str], body: bytes, timeout: float
) -> tuple[int, bytes]:
    return urllib_post(
        url,
        headers,
        body,
        timeout,
        lambda error: ModelUnavailable(f"the model server could not be reached: {error}"),
    )


def completions_url(base_url: str) -> str:
    base = base_url.rstrip("/")
    if base.endswith("/chat/completions"):
        return base
    if not base.endswith("/v1"):
        base += "/v1"
    return base + "/chat/completions"


class OpenAICompatibleModel(StructuredModel):
    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str | None = None,
        transport: Transport | None = None,
        timeout: float = 60.0,
        max_tokens: int = 2_000,
        temperature: float = 0.0,
    ) -> None:
        self.model_id = model
        self._url = completions_url(base_url)
        self._api_key = api_key
        self._transport = transport or urllib_transport
        self._timeout = timeout
        self._max_tokens = max_tokens
        self._temperature = temperature

    def _structured(self, system: str, prompt: str, output: Output[T]) -> ModelResult[T]:
        name = f"memory_{output.name}"
        chat: list[dict[str, str]] = [
            {"role": "system", "content": system},
            {"role": "user", "content": prompt},
        ]
        usage: list[ModelUsage] = []
        error = ""
        for attempt in range(2):
            reply, call_usage = self._call(chat, name, output.schema)
            usage.append(call_usage)
            try:
                return ModelResult(output.parse(loads_reply(reply)), usage)
            except (ValueError, ValidationError) as exc:  # JSONDecodeError is a ValueError
                error = _short(exc)
                logger.warning(
                    "model reply is not valid %s (attempt %d): %s", name, attempt + 1, error
                )
                chat = [
                    *chat,
                    {"role": "assistant", "content": reply},
                    {"role": "user", "content": repair_prompt(error)},
                ]
        raise ModelOutputInvalid(
            f"the model's reply was not valid {name} JSON after one repair attempt: {error}",
            model_id=self.model_id,
        )

    def _call(
        self, chat: list[dict[str, str]], name: str, schema: dict[str, Any]
    ) -> tuple[str, ModelUsage]:
        completion = post_chat(
            self._transport,
            self._url,
            self._api_key,
            self._timeout,
            model=self.model_id,
            messages=chat,
            temperature=self._temperature,
            max_tokens=self._max_tokens,
            schema_name=name,
            schema=schema,
            refused=_refused,
            malformed=_not_a_completion,
        )
        reply = completion.content
        sent = sum(len(m["content"]) for m in chat)
        input_tokens, output_tokens = completion.tokens(max(1, (sent + 3) // 4), reply)
        usage = ModelUsage(
            model_id=completion.model_id(self.model_id),
            input_tokens=input_tokens,
            output_tokens=output_tokens,
        )
        return str(reply), usage


def _refused(status: int, raw: bytes) -> ModelUnavailable:
    return ModelUnavailable(
        f"the model server answered {status}: {raw[:300].decode(errors='replace')}",
        upstream_status=status,
    )


def _not_a_completion(exc: Exception) -> ModelUnavailable:
    return ModelUnavailable(f"the model server's response is not a chat completion: {exc}")


def _short(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ()))
        return f"{where}: {first.get('msg')}" if where else str(first.get("msg"))
    return str(exc)[:300]
