"""The entity model's adapters (domain/search/entity_model.py): Bedrock Converse, the cloud's
choice, and any OpenAI-compatible /v1/chat/completions endpoint. Each asks for one structured
output, the names of each numbered text, as the extraction models do (bedrock.py,
openai_compatible.py): Converse through a forced tool whose input schema is the output's, an
OpenAI-compatible server through a JSON-schema response format. Whatever fails (a refused or
throttled call, an unreachable server, a reply out of shape) is EntityModelFailed: the caller
keeps the rules' keys and asks again later.
"""

from __future__ import annotations

import logging
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from ...domain.search.entity_model import (
    ENTITY_INSTRUCTIONS,
    EntityModel,
    EntityModelFailed,
    Named,
    entity_prompt,
)
from ..aws import LazyClient
from ..http_post import Transport, urllib_post
from ._structured import estimate_tokens, loads_reply
from .chat_completions import post_chat
from .openai_compatible import completions_url

logger = logging.getLogger(__name__)

TOOL = "record_entities"
# One entry a text, by its number: a model may skip a text that names nothing.
ENTITIES_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "texts": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "text": {"type": "integer", "description": "the text's number"},
                    "entities": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["text", "entities"],
            },
        }
    },
    "required": ["texts"],
}


def parse_names(reply: Any, count: int) -> list[list[str]]:
    """The names of each of `count` texts from a reply of ENTITIES_SCHEMA's shape; a text the
    reply skips names nothing, a number out of range is ignored."""
    if not isinstance(reply, dict) or not isinstance(reply.get("texts"), list):
        raise EntityModelFailed("the model's reply has no list of texts")
    names: list[list[str]] = [[] for _ in range(count)]
    for entry in reply["texts"]:
        if not isinstance(entry, dict):
            continue
        number, found = entry.get("text"), entry.get("entities")
        if isinstance(number, int) and 0 <= number < count and isinstance(found, list):
            names[number].extend(n for n in found if isinstance(n, str))
    return names


def _max_tokens(texts: list[str]) -> int:
    # Enough for MAX_ENTITIES short names a text, and no more: the answer is what costs most.
    return min(4_096, 200 + 120 * len(texts))


class BedrockEntityModel(EntityModel):
    def __init__(self, *, model_id: str, client: Any = None, region: str | None = None) -> None:
        self.model_id = model_id
        self._client = LazyClient("bedrock-runtime", region, client)

    def _names(self, texts: list[str]) -> Named:
        try:
            response = self._client.get().converse(
                modelId=self.model_id,
                system=[{"text": ENTITY_INSTRUCTIONS}],
                messages=[{"role": "user", "content": [{"text": entity_prompt(texts)}]}],
                inferenceConfig={"maxTokens": _max_tokens(texts), "temperature": 0.0},
                toolConfig={
                    "tools": [
                        {
                            "toolSpec": {
                                "name": TOOL,
                                "description": "Record the entities of each numbered text.",
                                "inputSchema": {"json": ENTITIES_SCHEMA},
                            }
                        }
                    ],
                    "toolChoice": {"tool": {"name": TOOL}},
                },
            )
        except ClientError as error:
            code = error.response.get("Error", {}).get("Code", "")
            raise EntityModelFailed(f"the model service refused the call ({code})") from error
        except BotoCoreError as error:
            raise EntityModelFailed(f"the model service failed: {error}") from error
        content = response.get("output", {}).get("message", {}).get("content", [])
        inputs = [
            block["toolUse"].get("input")
            for block in content
            if "toolUse" in block and block["toolUse"].get("name") == TOOL
        ]
        if not inputs:
            raise EntityModelFailed(f"the model did not call {TOOL}")
        usage = response.get("usage") or {}
        return Named(
            parse_names(inputs[0], len(texts)),
            self.model_id,
            int(usage.get("inputTokens", 0)),
            int(usage.get("outputTokens", 0)),
        )


class OpenAIEntityModel(EntityModel):
    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str | None = None,
        transport: Transport | None = None,
        timeout: float = 60.0,
    ) -> None:
        self.model_id = model
        self._url = completions_url(base_url)
        self._api_key = api_key
        self._transport = transport or _post
        self._timeout = timeout

    def _names(self, texts: list[str]) -> Named:
        prompt = entity_prompt(texts)
        completion = post_chat(
            self._transport,
            self._url,
            self._api_key,
            self._timeout,
            model=self.model_id,
            messages=[
                {"role": "system", "content": ENTITY_INSTRUCTIONS},
                {"role": "user", "content": prompt},
            ],
            temperature=0.0,
            max_tokens=_max_tokens(texts),
            schema_name=TOOL,
            schema=ENTITIES_SCHEMA,
            refused=lambda status, _raw: EntityModelFailed(f"the model server answered {status}"),
            malformed=_not_json,
        )
        reply = str(completion.content)
        try:
            parsed = loads_reply(reply)
        except ValueError as exc:
            raise _not_json(exc) from exc
        return Named(
            parse_names(parsed, len(texts)),
            completion.model_id(self.model_id),
            *completion.tokens(estimate_tokens(ENTITY_INSTRUCTIONS + prompt), reply),
        )


def _not_json(exc: Exception) -> EntityModelFailed:
    return EntityModelFailed(f"the model server's reply is not JSON: {exc}")


def _post(url: str, headers: dict[str, str], body: bytes, timeout: float) -> tuple[int, bytes]:
    return urllib_post(
        url,
        headers,
        body,
        timeout,
        lambda error: EntityModelFailed(f"the model server could not be reached: {error}"),
    )
