"""BedrockModel: bedrock-runtime's Converse API, structured output through tool use.

Each call offers one tool whose inputSchema is the output's JSON schema and forces it with
toolChoice, so the reply is a toolUse block whose input is the structured output. The model id
is configurable (any Converse model that supports tool use and forced tool choice, such as
Anthropic Claude or Amazon Nova). Usage is the response's inputTokens / outputTokens. A
ClientError or other botocore failure is ModelUnavailable (503); a tool input that does not
match the schema is ModelOutputInvalid. `client` is a bedrock-runtime client; without one, a
client is created on first use, in `region` or the environment's default region.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, TypeVar

from botocore.exceptions import BotoCoreError, ClientError, ParamValidationError
from pydantic import ValidationError

from agent_memory.adapters.aws import LazyClient
from agent_memory.domain.extraction.model import (
    CANDIDATES_SCHEMA,
    DECISIONS_SCHEMA,
    Candidate,
    Decision,
    Existing,
    MemoryModel,
    Message,
    ModelOutputInvalid,
    ModelResult,
    ModelUnavailable,
    ModelUsage,
    parse_candidates,
    parse_decisions,
)
from agent_memory.domain.extraction.pipeline import DEFAULT_INSTRUCTIONS
from agent_memory.domain.extraction.prompts import (
    DECIDE_INSTRUCTIONS,
    decide_prompt,
    propose_prompt,
)

logger = logging.getLogger(__name__)

DEFAULT_MODEL_ID = "us.anthropic.claude-haiku-4-5-20251001-v1:0"
T = TypeVar("T")


class BedrockModel(MemoryModel):
    def __init__(
        self,
        *,
        model_id: str = DEFAULT_MODEL_ID,
        client: Any = None,
        region: str | None = None,
        max_tokens: int = 2_000,
        temperature: float = 0.0,
    ) -> None:
        self.model_id = model_id
        self._client = LazyClient("bedrock-runtime", region, client)
        self._max_tokens = max_tokens
        self._temperature = temperature

    @property
    def client(self) -> Any:
        return self._client.get()

    def propose(
        self,
        messages: list[Message],
        instructions: str,
        existing_kinds: list[str],
        labels: dict[str, str],
    ) -> ModelResult[list[Candidate]]:
        return self._structured(
            instructions.strip() or DEFAULT_INSTRUCTIONS,
            propose_prompt(messages, existing_kinds, labels),
            "record_memory_candidates",
            "Record the candidate memories worth keeping from the conversation.",
            CANDIDATES_SCHEMA,
            parse_candidates,
        )

    def decide(
        self,
        candidates: list[Candidate],
        neighbours: dict[int, list[Existing]],
    ) -> ModelResult[list[Decision]]:
        if not candidates:
            return ModelResult([], [])
        return self._structured(
            DECIDE_INSTRUCTIONS,
            decide_prompt(candidates, neighbours),
            "record_memory_decisions",
            "Record one decision per candidate memory.",
            DECISIONS_SCHEMA,
            parse_decisions,
        )

    def _structured(
        self,
        system: str,
        prompt: str,
        tool: str,
        description: str,
        schema: dict[str, Any],
        parse: Callable[[Any], T],
    ) -> ModelResult[T]:
        try:
            response = self.client.converse(
                modelId=self.model_id,
                system=[{"text": system}],
                messages=[{"role": "user", "content": [{"text": prompt}]}],
                inferenceConfig={"maxTokens": self._max_tokens, "temperature": self._temperature},
                toolConfig={
                    "tools": [
                        {
                            "toolSpec": {
                                "name": tool,
                                "description": description,
                                "inputSchema": {"json": schema},
                            }
                        }
                    ],
                    "toolChoice": {"tool": {"name": tool}},
                },
            )
        except ClientError as error:
            code = error.response.get("Error", {}).get("Code", "")
            logger.warning("bedrock converse failed: %s", code)
            raise ModelUnavailable(
                f"the model service refused the call ({code or 'error'}): {error}",
                model_id=self.model_id,
            ) from error
        except ParamValidationError:
            raise  # a bug in the request, not an outage
        except BotoCoreError as error:
            raise ModelUnavailable(
                f"the model service failed: {error}", model_id=self.model_id
            ) from error
        reported = response.get("usage") or {}
        usage = ModelUsage(
            model_id=self.model_id,
            input_tokens=int(reported.get("inputTokens", 0)),
            output_tokens=int(reported.get("outputTokens", 0)),
        )
        content = response.get("output", {}).get("message", {}).get("content", [])
        inputs = [
            block["toolUse"].get("input")
            for block in content
            if "toolUse" in block and block["toolUse"].get("name") == tool
        ]
        if not inputs:
            raise ModelOutputInvalid(
                f"the model did not call {tool} (stopReason {response.get('stopReason')})",
                model_id=self.model_id,
            )
        try:
            return ModelResult(parse(inputs[0]), [usage])
        except (ValueError, ValidationError) as error:
            raise ModelOutputInvalid(
                f"the model's {tool} input does not match the schema: {error}",
                model_id=self.model_id,
            ) from error
