"""BedrockReranker: Amazon Bedrock's Rerank API (bedrock-agent-runtime), the cloud's choice.

One call scores up to 1,000 inline text documents against one query with a Bedrock reranking
model (amazon.rerank-v1:0, cohere.rerank-v3-5:0). The manifest names the model by id or ARN; an
id becomes the foundation model's ARN in the deployment's region.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError, ParamValidationError

from agent_memory.adapters.aws import LazyClient
from agent_memory.domain.search import Reranker, RerankFailed, Scores


class BedrockReranker(Reranker):
    provider = "bedrock"

    def __init__(
        self, *, region: str | None, client: Any = None, timeout_seconds: float = 2.0
    ) -> None:
        self._region = region
        self._client = LazyClient(
            "bedrock-agent-runtime",
            region,
            client,
            # A rerank that does not answer quickly costs the search more than it gives: one
            # try, a short read; the search falls back to its first-stage order.
            retries={"mode": "standard", "max_attempts": 1},
            connect_timeout=timeout_seconds,
            read_timeout=timeout_seconds,
        )

    def model_arn(self, model: str) -> str:
        if model.startswith("arn:"):
            return model
        if not self._region:
            raise RerankFailed("a Bedrock model id needs AWS_REGION to name its ARN")
        return f"arn:aws:bedrock:{self._region}::foundation-model/{model}"

    def score(self, model: str, query: str, documents: Sequence[str]) -> Scores:
        request = {
            "queries": [{"type": "TEXT", "textQuery": {"text": query}}],
            "sources": [
                {
                    "type": "INLINE",
                    "inlineDocumentSource": {"type": "TEXT", "textDocument": {"text": text}},
                }
                for text in documents
            ],
            "rerankingConfiguration": {
                "type": "BEDROCK_RERANKING_MODEL",
                "bedrockRerankingConfiguration": {
                    "numberOfResults": len(documents),
                    "modelConfiguration": {"modelArn": self.model_arn(model)},
                },
            },
        }
        try:
            response = self._client.get().rerank(**request)
        except ClientError as exc:
            code = exc.response.get("Error", {}).get("Code", "unknown")
            raise RerankFailed(f"Bedrock refused the rerank ({code})") from exc
        except ParamValidationError as exc:
            raise RerankFailed(f"Bedrock would refuse the request: {exc}") from exc
        except BotoCoreError as exc:
            raise RerankFailed(f"Bedrock could not be reached: {exc}") from exc
        scores: list[float | None] = [None] * len(documents)
        for result in response.get("results", []):
            index = result.get("index")
            if isinstance(index, int) and 0 <= index < len(documents):
                scores[index] = float(result["relevanceScore"])
        if any(s is None for s in scores):
            raise RerankFailed("Bedrock's rerank left documents without a score")
        return Scores([s for s in scores if s is not None])
