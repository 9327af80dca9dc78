"""What the LLM adapters share: propose and decide as one structured-output call each,
parsing a structured reply, and estimating tokens."""

from __future__ import annotations

import json
import re
from abc import abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from agent_memory.domain.extraction.model import (
    CANDIDATES_SCHEMA,
    DECISIONS_SCHEMA,
    Candidate,
    Decision,
    Existing,
    MemoryModel,
    Message,
    ModelResult,
    parse_candidates,
    parse_decisions,
)
from agent_memory.domain.extraction.pipeline import DEFAULT_INSTRUCTIONS
from agent_memory.domain.extraction.prompts import (
    DECIDE_INSTRUCTIONS,
    decide_prompt,
    propose_prompt,
)

T = TypeVar("T")


@dataclass(frozen=True)
class Output(Generic[T]):
    """One structured output: its name (each adapter words it its own way), what it is for,
    its JSON schema, and the parser that validates it."""

    name: str
    description: str
    schema: dict[str, Any]
    parse: Callable[[Any], T]


CANDIDATES: Output[list[Candidate]] = Output(
    "candidates",
    "Record the candidate memories worth keeping from the conversation.",
    CANDIDATES_SCHEMA,
    parse_candidates,
)
DECISIONS: Output[list[Decision]] = Output(
    "decisions", "Record one decision per candidate memory.", DECISIONS_SCHEMA, parse_decisions
)


class StructuredModel(MemoryModel):
    """An LLM answering with JSON that matches a schema: propose and decide are one call each
    (decide none when there is nothing to decide); adapters implement the call."""

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
            CANDIDATES,
        )

    def decide(
        self,
        candidates: list[Candidate],
        neighbours: dict[int, list[Existing]],
    ) -> ModelResult[list[Decision]]:
        if not candidates:
            return ModelResult([], [])
        return self._structured(
            DECIDE_INSTRUCTIONS, decide_prompt(candidates, neighbours), DECISIONS
        )

    @abstractmethod
    def _structured(self, system: str, prompt: str, output: Output[T]) -> ModelResult[T]:
        """One model call (and any repair) whose reply is `output`, parsed."""


_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.S | re.I)


def loads_reply(text: str) -> Any:
    """The JSON of a model's reply; a ```json fence around it (a habit of local models) is
    tolerated. Raises ValueError when it is not JSON."""
    m = _FENCE.match(text)
    return json.loads(m[1] if m else text)


def estimate_tokens(text: str) -> int:
    return max(1, (len(text) + 3) // 4)
