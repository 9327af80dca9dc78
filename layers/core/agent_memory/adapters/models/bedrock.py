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
from typing import Any, TypeVar

from botocore.exceptions import BotoCoreError, ClientError, ParamValidationError
from pydantic import ValidationError

from agent_memory.adapters.aws import LazyClient
from agent_memory.domain.extraction.model import (
    ModelOutputInvalid,
    ModelResult,
    ModelUnavailable,
    ModelUsage,
)

from ._structured import Output, StructuredModel

logger = logging.getLogger(__name__)

DEFAULT_MODEL_ID = "us.anthropic.claude-haiku-4-5-20251001-v1:0"
T = TypeVar("T")


class BedrockModel(StructuredModel):
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

    def _structured(self, system: str, prompt: str, output: Output[T]) -> ModelResult[T]:
        tool = f"record_memory_{output.name}"
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
                                "description": output.description,
                                "inputSchema": {"json": output.schema},
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
            return ModelResult(output.parse(inputs[0]), [usage])
        except (ValueError, ValidationError) as error:
            raise ModelOutputInvalid(
                f"the model's {tool} input does not match the schema: {error}",
                model_id=self.model_id,
            ) from error
