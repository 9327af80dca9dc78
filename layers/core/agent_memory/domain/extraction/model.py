"""The Model port of post-turn extraction, and the shapes it exchanges.

A review makes at most two model calls: `propose` reads the window of messages and returns
candidate memories; `decide` gets every candidate with its most similar existing memories and
returns, in one batched call, what to do with each (add, replace <id>, delete <id>, or skip).
Every call reports its usage (purpose `memory`): model id, tokens in and out.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar

from pydantic import ConfigDict, Field, field_validator

from agent_memory.domain.kernel.errors import DomainError

from ..kernel.deferred import DeferredModel

SUMMARY_MAX_CHARS = 500
CONTENT_MAX_CHARS = 8_000
Action = Literal["add", "replace", "delete", "skip"]
MessageRole = Literal["user", "assistant"]
CandidateScope = Literal["session", "agent"]

T = TypeVar("T")


class ModelUnavailable(DomainError):
    """The model service refused or failed; the caller may retry."""

    status = 503
    code = "model_unavailable"


class ModelOutputInvalid(DomainError):
    """The model's output did not match the schema, even after the repair attempt."""

    status = 502
    code = "model_output_invalid"


class _Shape(DeferredModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Message(_Shape):
    """One message of the window under review."""

    role: MessageRole
    text: str
    id: str | None = None
    """The source's id, cited by candidates: a LoCoMo dia_id if the event has one, else the
    history event id."""
    speaker: str | None = None
    turn: int | None = None
    time: str | None = None
    """When it was said: the event's `date` metadata if it has one, else its time's date."""


class Candidate(_Shape):
    """A memory worth keeping, as proposed from the window."""

    summary: str = Field(min_length=1, max_length=SUMMARY_MAX_CHARS)
    content: str | None = Field(default=None, max_length=CONTENT_MAX_CHARS)
    kind: str = Field(min_length=1, max_length=64)
    labels: dict[str, str] = Field(default_factory=dict)
    sources: list[str] = Field(default_factory=list)
    scope: CandidateScope | None = None
    """The scope the model chose: agent for what holds beyond the conversation, session for
    what belongs to it. None (a model that did not choose) is the spec's default, session scope
    when scope.write includes session. The review clamps it to scope.write (resolve_scope)."""
    correction: bool = False
    """True when the message corrects something said earlier."""

    @field_validator("summary")
    @classmethod
    def _one_line(cls, value: str) -> str:
        value = value.strip()
        if not value:
            raise ValueError("summary must not be blank")
        if "\n" in value or "\r" in value:
            raise ValueError("summary must be one line")
        return value


class Existing(_Shape):
    """An existing memory shown to `decide` as a neighbour of a candidate."""

    id: str
    summary: str
    content: str | None = None
    kind: str


class Decision(_Shape):
    """What to do with candidate number `candidate`: replace and delete name a `target`."""

    candidate: int = Field(ge=0)
    action: Action
    target: str | None = None
    reason: str = Field(default="", max_length=1_000)


class ModelUsage(_Shape):
    model_id: str
    input_tokens: int = Field(ge=0)
    output_tokens: int = Field(ge=0)


class Proposal(_Shape):
    """What `propose` hands to `decide` and `apply` (the state machine carries it between its
    tasks): how many messages the window held, the candidates, the model calls made, the turns
    read and the last turn sequence covered."""

    messages: int | None = Field(default=None, ge=0)
    candidates: list[Candidate] = Field(default_factory=list)
    usage: list[ModelUsage] = Field(default_factory=list)
    read: list[str] = Field(default_factory=list)
    through: int | None = None


class Decisions(_Shape):
    """What `decide` hands to `apply`: a decision per candidate, the ids of the memories shown
    as neighbours (the only ones replace and delete may name), the model calls made."""

    decisions: list[Decision] = Field(default_factory=list)
    shown: list[str] = Field(default_factory=list)
    usage: list[ModelUsage] = Field(default_factory=list)


@dataclass(frozen=True)
class ModelResult(Generic[T]):
    """A port call's value and the usage of every model call it made (a repair retry is a
    second call, so it is a second entry)."""

    value: T
    usage: list[ModelUsage] = field(default_factory=list)

    @property
    def input_tokens(self) -> int:
        return sum(u.input_tokens for u in self.usage)

    @property
    def output_tokens(self) -> int:
        return sum(u.output_tokens for u in self.usage)


class MemoryModel(ABC):
    """The model a review asks. Adapters: RuleBasedModel (offline default),
    OpenAICompatibleModel, BedrockModel."""

    model_id: str
    # True when the model's facts restate the message's own words (the rule-based model): as
    # keys of the message they add no word of their own, so by default none are kept
    # (manifest harness.history.fact_keys).
    restates: bool = False

    @abstractmethod
    def propose(
        self,
        messages: list[Message],
        instructions: str,
        existing_kinds: list[str],
        labels: dict[str, str],
    ) -> ModelResult[list[Candidate]]:
        """One model call: candidate memories from `messages`. `labels` maps each declared
        label name to its description."""

    @abstractmethod
    def decide(
        self,
        candidates: list[Candidate],
        neighbours: dict[int, list[Existing]],
    ) -> ModelResult[list[Decision]]:
        """One batched model call: a decision per candidate, given each candidate's most
        similar existing memories (`neighbours`, keyed by candidate index)."""


# JSON schemas of the structured outputs, shared by the LLM adapters.

CANDIDATES_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "candidates": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "summary": {"type": "string", "maxLength": SUMMARY_MAX_CHARS},
                    "content": {"type": ["string", "null"]},
                    "kind": {"type": "string"},
                    "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                    "sources": {"type": "array", "items": {"type": "string"}},
                    "scope": {
                        "type": "string",
                        "enum": ["session", "agent"],
                        "description": "agent: true beyond this conversation; session: this "
                        "conversation only",
                    },
                    "correction": {"type": "boolean"},
                },
                "required": ["summary", "kind", "sources", "scope"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["candidates"],
    "additionalProperties": False,
}

DECISIONS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "decisions": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "candidate": {"type": "integer", "minimum": 0},
                    "action": {"type": "string", "enum": ["add", "replace", "delete", "skip"]},
                    "target": {"type": ["string", "null"]},
                    "reason": {"type": "string"},
                },
                "required": ["candidate", "action", "reason"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["decisions"],
    "additionalProperties": False,
}


def parse_candidates(data: Any) -> list[Candidate]:
    """Candidates from a structured output; raises ValueError (pydantic's ValidationError is
    one) when it does not match CANDIDATES_SCHEMA."""
    if not isinstance(data, dict) or not isinstance(data.get("candidates"), list):
        raise ValueError('expected an object with a "candidates" array')
    return [Candidate.model_validate(item) for item in data["candidates"]]


def parse_decisions(data: Any) -> list[Decision]:
    """Decisions from a structured output; raises ValueError when it does not match
    DECISIONS_SCHEMA."""
    if not isinstance(data, dict) or not isinstance(data.get("decisions"), list):
        raise ValueError('expected an object with a "decisions" array')
    return [Decision.model_validate(item) for item in data["decisions"]]
