"""Session history: what each committed turn said, kept per harness.history.index."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from datetime import datetime
from typing import Any, Literal

from pydantic import ConfigDict, Field, StrictInt

from ..kernel.deferred import DeferredModel
from ..kernel.models import Entity
from ..search import tokenize

Role = Literal["user", "assistant", "tool_result", "error"]
EVENT_TEXT_MAX_CHARS = 1_000_000
# Tools whose calls and results are the agent's own retrievals: never kept.
RETRIEVAL_TOOLS = frozenset(
    {"search_history", "search_memory", "read_memory", "recall", "memory_recall"}
)
# The memory tool retrieves with one command (view) and writes with the others: what a view
# returned is not kept, what a write answered is.
MEMORY_TOOL = "memory"
MEMORY_VIEW = "view"
SKILL_TOOLS = frozenset({"skill", "load_skill", "skill_load"})
# Long events are indexed in parts of PART_WORDS words overlapping by PART_OVERLAP
# (measured on LoCoMo, benchmarks/RESULTS.md).
PART_WORDS = 200
PART_OVERLAP = 40


class ToolCall(DeferredModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1, max_length=128)
    call_id: str | None = Field(default=None, max_length=256)


class EventIn(DeferredModel):
    """One event as a harness appends it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    role: Role
    text: str = Field(default="", max_length=EVENT_TEXT_MAX_CHARS)
    tool_name: str | None = Field(default=None, max_length=128)
    call_id: str | None = Field(default=None, max_length=256)
    tool_calls: list[ToolCall] = Field(default_factory=list, max_length=128)
    execution_id: str | None = Field(default=None, max_length=256)
    sequence: StrictInt | None = Field(default=None, ge=0, le=1_000_000)
    time: datetime | None = None
    metadata: dict[str, str] = Field(default_factory=dict, max_length=32)


class HistoryEvent(Entity):
    tenant: str = Field(exclude=True)
    agent_id: str = Field(serialization_alias="agentId")
    session_id: str = Field(serialization_alias="sessionId")
    turn_id: str = Field(serialization_alias="turnId")
    turn_sequence: int = Field(serialization_alias="turn")
    id: str
    sequence: int
    role: Role
    text: str
    tool_name: str | None = Field(default=None, serialization_alias="toolName")
    call_id: str | None = Field(default=None, serialization_alias="callId")
    tool_calls: list[ToolCall] = Field(default_factory=list, serialization_alias="toolCalls")
    execution_id: str | None = Field(default=None, serialization_alias="executionId")
    time: datetime
    metadata: dict[str, str] = Field(default_factory=dict)
    preview: bool = False
    # False when kept only for post-turn extraction (no harness.history.index): never indexed.
    searchable: bool = True

    def to_doc(self) -> dict[str, Any]:
        return {**self.model_dump(mode="json"), "tenant": self.tenant}

    def to_doc_json(self) -> str:
        """`to_doc()` as JSON text, serialised by pydantic in one step (a bulk load writes one
        an event: a third of the time of dumping the dict, then encoding it)."""
        fields = self.model_dump_json()
        return f'{{"tenant":{json.dumps(self.tenant)},{fields[1:]}'

    @property
    def parts(self) -> list[str]:
        return split_parts(self.text)

    def heading(self) -> str:
        """Who it is from, as the agent reads it: `turn 12, user`."""
        who = self.role if self.role != "tool_result" else f"tool result of {self.tool_name}"
        return f"turn {self.turn_sequence}, {who}"

    def meaning(self, part: str) -> str:
        """What a part is embedded as: its words without the turn heading (structure, not
        meaning), naming the tool of a result and an error as such."""
        if self.role == "tool_result":
            return f"result of {self.tool_name}: {part}"
        if self.role == "error":
            return f"error: {part}"
        return part

    def word_texts(self) -> list[str]:
        """The words each part's document is found by: the first holds the whole event, the
        others none. BM25 weighs an event as a whole: a long message cut in parts would have
        each part weighed as a short one, and long replies would crowd out the short messages
        that state things (LongMemEval dev, words only: message recall@10 0.796 in parts
        against 0.854 whole; benchmarks/RESULTS.md). Parts stay for meaning, which the model
        reads 256 tokens at a time. The words are the event's own, without its turn heading
        (structure, not what was said: LongMemEval dev, words only, recall@10 0.835 -> 0.843,
        LoCoMo unchanged), a tool's result and an error named as such, as their meaning is."""
        whole = self.meaning(self.text)
        return [whole] + [""] * (len(self.parts) - 1)

    def best_part(self, words: set[str]) -> int:
        """The part holding most of `words` (folded tokens), the first on a tie."""
        parts = self.parts
        if len(parts) == 1 or not words:
            return 1
        shared = [len(words & set(tokenize(part))) for part in parts]
        return shared.index(max(shared)) + 1

    def searchable_text(self) -> str:
        calls = ", ".join(c.name for c in self.tool_calls)
        return f"{self.text}\n(called {calls})" if calls else self.text


def event_id(session_id: str, turn_id: str, sequence: int) -> str:
    """Fixed by the session, the turn and the sequence, so a replayed append is applied once.
    The session is part of it because turn ids are the caller's and repeat across sessions
    (every session's first turn may be `t1`), while the search index keys an agent's history
    by this id: without it, one session's event would replace another's there."""
    return _digest_id(f"{session_id}:{turn_id}:{sequence}")


def _digest_id(fixed_by: str) -> str:
    return "evt_" + hashlib.sha256(fixed_by.encode()).hexdigest()[:26]


# Between an event's id and its session in the index id of an event kept with an older id.
# Session ids are opaque ids (letters, digits, `_` and `-`), and event ids `evt_` and hex.
SESSION_MARK = "@"


def index_id(event: HistoryEvent) -> str:
    """The id the search index knows `event` by: its own, unless it was kept before ids included
    the session (a store written before then holds some). Such an id repeats across sessions, so
    it is named with its session there, and two sessions' events no longer share a document."""
    return index_key(event.id, event.session_id, event.turn_id, event.sequence)


def index_key(event: str, session_id: str, turn_id: str, sequence: int) -> str:
    """index_id of the event `event` at (session_id, turn_id, sequence)."""
    if event != older_event_id(turn_id, sequence):
        return event
    return f"{event}{SESSION_MARK}{session_id}"


def older_event_id(turn_id: str, sequence: int) -> str:
    """The id an event was given before ids included the session."""
    return _digest_id(f"{turn_id}:{sequence}")


def part_id(event: str, part: int) -> str:
    return f"{event}.{part}"


def event_of(doc_id: str) -> str:
    """The id of the event a history document (`{index id}.{part}`) stands for."""
    return doc_id.rpartition(".")[0].partition(SESSION_MARK)[0]


def names_by_id_alone(doc_ids: Iterable[str]) -> list[str]:
    """What the documents among `doc_ids` whose event is named with its session (index_id) were
    named before that, by the event's id alone. Another session's event at the same turn id and
    sequence may have replaced them there, and they are no longer any event's."""
    older = []
    for doc_id in doc_ids:
        name, _, part = doc_id.rpartition(".")
        if SESSION_MARK in name:
            older.append(f"{name.partition(SESSION_MARK)[0]}.{part}")
    return older


def split_parts(text: str) -> list[str]:
    """Overlapping windows of words; a short event is one part."""
    words = text.split()
    if len(words) <= PART_WORDS:
        return [text]
    step = PART_WORDS - PART_OVERLAP
    return [
        " ".join(words[start : start + PART_WORDS])
        for start in range(0, max(len(words) - PART_OVERLAP, 1), step)
    ]


def kept(event: EventIn, index: str | None, views: frozenset[str] = frozenset()) -> EventIn | None:
    """The event as history keeps it under harness.history.index, or None when it is not kept.

    messages: the turn's messages and the agent's replies with the tools each reply called;
    messages_and_tools: also tool results and errors. Skill loads and the agent's own
    retrievals (search_history, search_memory, read_memory, recall, and the memory tool's
    view: a result whose execution is in `views`, or whose metadata names the command) are
    never kept.
    """
    if index is None:
        return None
    if event.metadata.get("kind") in ("skill_load", "skill"):
        return None
    if event.tool_name in RETRIEVAL_TOOLS or event.tool_name in SKILL_TOOLS:
        return None
    if is_memory_view(event, views):
        return None
    if event.role in ("tool_result", "error") and index != "messages_and_tools":
        return None
    if event.role == "assistant":
        calls = [
            c
            for c in event.tool_calls
            if c.name not in RETRIEVAL_TOOLS and c.name not in SKILL_TOOLS
        ]
        if not calls and not event.text.strip():
            return None
        if len(calls) != len(event.tool_calls):
            return event.model_copy(update={"tool_calls": calls})
    return event


def is_memory_view(event: EventIn, views: frozenset[str]) -> bool:
    """A result (or error) of the memory tool's view: the agent reading its own memory."""
    if event.tool_name != MEMORY_TOOL or event.role not in ("tool_result", "error"):
        return False
    if event.metadata.get("command") == MEMORY_VIEW:
        return True
    return event.execution_id is not None and event.execution_id in views
