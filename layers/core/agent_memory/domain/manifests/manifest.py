"""The agent manifest document: `{"harness": {"memory": {...}, "history": {...}}}`.

Field names are exactly the spec's (snake_case, as the manifest document writes them). The memory
and history sections reject unknown fields, so a typo such as `max_result` is a 400 instead of a
setting silently ignored; the rest of the document is the harness's own and is kept as given.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Annotated, Any, Literal

from pydantic import (
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StringConstraints,
    field_validator,
    model_validator,
)

from ..kernel.deferred import DeferredModel
from ..kernel.durations import parse_duration
from ..kernel.errors import InvalidRequest
from ..secrets import SecretMode

# The manifest document's top-level keys: `harness` (the manifest itself) or `manifest` (the name
# of a named manifest the agent follows; stored versions keep it as {name, version}). A save with
# any other key is refused (a typo, or a body meant for another route).
MANIFEST_KEYS: tuple[str, ...] = ("harness", "manifest")

Scope = Literal["session", "agent"]
ToolName = Literal["add_memory", "read_memory", "delete_memory", "search_memory"]
Name = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_]{0,63}$")]

DEFAULT_KINDS = ["guidance", "fact", "event", "reference"]
INSTRUCTIONS_MAX_CHARS = 4096
LABEL_NUMBERS = range(5, 19)


class _Strict(DeferredModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _unique(values: list[Any], what: str) -> list[Any]:
    if len(set(values)) != len(values):
        raise ValueError(f"{what} must not repeat a value")
    return values


def scope_list(scopes: Sequence[str]) -> str:
    """A scope list as the manifest writes it, for messages: ["session", "agent"]."""
    return "[" + ", ".join(f'"{s}"' for s in scopes) + "]"


def _session_only() -> list[Scope]:
    return ["session"]


class ScopeConfig(_Strict):
    read: list[Scope] = Field(default_factory=_session_only)
    write: list[Scope] = Field(default_factory=_session_only)

    @field_validator("read", "write")
    @classmethod
    def _no_repeats(cls, value: list[str]) -> list[str]:
        return _unique(value, "a scope list")


class EveryMessages(_Strict):
    messages: StrictInt = Field(ge=1, le=10_000)


class ExtractionConfig(_Strict):
    prompt: Annotated[str, Field(max_length=INSTRUCTIONS_MAX_CHARS)] | None = None
    every: Literal["turn"] | EveryMessages = "turn"
    # "review": a review's adds, replaces and deletes wait as PENDING records until an app
    # approves or rejects each; "auto" applies them at once.
    approval: Literal["auto", "review"] = "auto"


# Where a rerank's scores come from (adapters/rerank/): the deployment configures each provider's
# endpoint, credentials or directory (settings.py); the manifest picks one and its model.
RerankProvider = Literal["bedrock", "http", "onnx"]
RERANK_MAX_TOP = 100


class RerankConfig(_Strict):
    """A second stage over the first `top` hits of a search: a model scores each against the
    query and they are put in its order; hits past `top` follow in their first-stage order."""

    provider: RerankProvider
    # A Bedrock model id or ARN, the HTTP service's model name, or the ONNX model's directory
    # under the deployment's AGENT_MEMORY_RERANK_ONNX_DIR.
    model: Annotated[str, StringConstraints(min_length=1, max_length=2048)]
    top: StrictInt = Field(default=20, ge=1, le=RERANK_MAX_TOP)

    @model_validator(mode="after")
    def _onnx_model_inside(self) -> RerankConfig:
        # A local model is a directory under the one the deployment gives: never a way out of it.
        parts = self.model.replace("\\", "/").split("/")
        if self.provider == "onnx" and (self.model.startswith("/") or ".." in parts):
            raise ValueError(
                "an onnx model is a directory under AGENT_MEMORY_RERANK_ONNX_DIR, "
                "such as ms-marco-MiniLM-L6-v2 (not an absolute path, no ..)"
            )
        return self


class SearchConfig(_Strict):
    mode: Literal["hybrid", "lexical", "vector"] = "hybrid"
    max_results: StrictInt = Field(default=5, ge=1, le=100)
    min_score: StrictFloat | None = Field(default=None, ge=-1.0, le=1.0)
    # Off unless given: search_memory, search_history and the one search keep their own order.
    rerank: RerankConfig | None = None


class Label(_Strict):
    number: StrictInt = Field(ge=LABEL_NUMBERS.start, le=LABEL_NUMBERS.stop - 1)
    description: str = Field(default="", max_length=1024)


class PinnedConfig(_Strict):
    max_tokens: StrictInt = Field(ge=1, le=100_000)


# The shortest interval a scheduled consolidation takes: each run reads every active record.
CONSOLIDATION_MIN_EVERY = timedelta(hours=1)


class ConsolidationConfig(_Strict):
    """A consolidation on a schedule (`every`, an ISO 8601 duration of at least PT1H), and how
    old an event is when a consolidation expires it (`stale_after`; expire_after's event
    lifetime when not given)."""

    every: str | None = None
    stale_after: str | None = None

    @field_validator("every")
    @classmethod
    def _every(cls, value: str | None) -> str | None:
        if value is not None and parse_duration(value) < CONSOLIDATION_MIN_EVERY:
            raise ValueError(f"{value!r} is shorter than PT1H, the most often it runs")
        return value

    @field_validator("stale_after")
    @classmethod
    def _stale_after(cls, value: str | None) -> str | None:
        if value is not None:
            parse_duration(value)
        return value


class MemoryConfig(_Strict):
    enabled: StrictBool = False
    access: Literal["read_write", "read_only"] = "read_write"
    instructions: str = Field(default="", max_length=INSTRUCTIONS_MAX_CHARS)
    scope: ScopeConfig = Field(default_factory=ScopeConfig)
    extraction: ExtractionConfig = Field(default_factory=ExtractionConfig)
    search: SearchConfig = Field(default_factory=SearchConfig)
    kinds: Annotated[list[Name], Field(min_length=1, max_length=32)] = Field(
        default_factory=lambda: list(DEFAULT_KINDS)
    )
    labels: dict[Name, Label] = Field(default_factory=dict)
    pinned: PinnedConfig | None = None
    tools: list[ToolName] = Field(default_factory=list)
    # The secret guard (domain/secrets/guard.py): what a write holding a secret gets.
    secrets: SecretMode = "block"
    # A kind's default lifetime: its new records expire this long after they are written.
    expire_after: dict[Name, str] = Field(default_factory=dict)
    # Consolidation of the agent's whole record memory (domain/extraction/consolidation.py).
    consolidation: ConsolidationConfig | None = None

    @property
    def extracts(self) -> bool:
        """Whether committed turns are reviewed for memories (post-turn extraction): memory is
        enabled and writable."""
        return self.enabled and self.access == "read_write" and bool(self.scope.write)

    @field_validator("kinds")
    @classmethod
    def _unique_kinds(cls, value: list[str]) -> list[str]:
        return _unique(value, "kinds")

    @field_validator("expire_after")
    @classmethod
    def _durations(cls, value: dict[str, str]) -> dict[str, str]:
        for duration in value.values():
            parse_duration(duration)
        return value

    @model_validator(mode="after")
    def _declared_kinds(self) -> MemoryConfig:
        unknown = sorted(set(self.expire_after) - set(self.kinds))
        if unknown:
            raise ValueError(f"expire_after names kinds not in kinds: {', '.join(unknown)}")
        return self

    @field_validator("tools")
    @classmethod
    def _unique_tools(cls, value: list[str]) -> list[str]:
        return _unique(value, "tools")

    @field_validator("labels")
    @classmethod
    def _unique_label_numbers(cls, value: dict[str, Label]) -> dict[str, Label]:
        _unique([label.number for label in value.values()], "label numbers")
        return value


class HistoryConfig(_Strict):
    index: Literal["messages", "messages_and_tools"] | None = None
    # How far the agent's search_history reaches: its own session (the spec's), or every
    # session of the agent (results name their session).
    search: Literal["session", "agent"] = "session"
    # Whether the facts a post-turn review proposes from a message find that message too
    # (history_keys). None: when the review's model words facts its own way (an LLM), not when
    # it restates the message (the offline rule-based model: measured to cost LoCoMo recall,
    # benchmarks/RESULTS.md "Fact keys").
    fact_keys: StrictBool | None = None
    # Whether a history search's entities pull in the events that mention them, and a second
    # hop through the entities those share (domain/search/hops.py). Off: the ranking measured in
    # benchmarks/RESULTS.md.
    entity_links: StrictBool = False


class Harness(DeferredModel):
    # Other harness settings (instructions, tools, ...) belong to the harness: kept as given.
    model_config = ConfigDict(extra="allow", frozen=True)

    memory: MemoryConfig = Field(default_factory=MemoryConfig)
    history: HistoryConfig = Field(default_factory=HistoryConfig)


class Manifest(DeferredModel):
    """One version of an agent's configuration."""

    model_config = ConfigDict(extra="allow", frozen=True)

    harness: Harness = Field(default_factory=Harness)

    def document(self) -> dict[str, Any]:
        """The manifest as stored and returned: defaults filled in, so readers see what applies.

        A harness without `memory` keeps none: declaring the section is what gives an agent its
        file memory (record memory also needs `enabled`)."""
        document = self.model_dump(mode="json", by_alias=True)
        if not self.memory_declared:
            del document["harness"]["memory"]
        return document

    @property
    def memory_declared(self) -> bool:
        return "memory" in self.harness.model_fields_set


def _document_schema(schema: dict[str, Any]) -> None:
    schema.setdefault("properties", {})["manifest"] = {
        "type": "string",
        "description": "The name of a named manifest (PUT /v1/agent-manifests/{name}) for the "
        "agent to follow, in place of a harness of its own.",
    }
    schema["additionalProperties"] = False


class ManifestDocument(Manifest):
    """A manifest as a caller saves it, as the API documents it: `harness`, or `manifest` (the
    name of a named manifest to follow), and no other top-level key. `check_saved_keys` holds it
    to that once the caller is known, so a caller without a token hears 401 before any word about
    the body."""

    model_config = ConfigDict(json_schema_extra=_document_schema)


def check_saved_keys(manifest: Manifest) -> None:
    """A manifest as a caller saves it: `harness` present, and no top-level key outside
    `MANIFEST_KEYS` (400 `invalid_manifest`, nothing saved). Versions already stored are read
    as they are."""
    extra = manifest.model_extra or {}
    unknown = [key for key in extra if key not in MANIFEST_KEYS]
    if unknown:
        keys = ", ".join(repr(k) for k in unknown)
        hint = (
            " (the SDK drops `$schema`; leave it out of a direct PUT)"
            if "$schema" in unknown
            else ""
        )
        raise InvalidRequest(
            f"unknown top-level key {keys}: a manifest takes only harness, or manifest to "
            f"follow a named one{hint}",
            code="invalid_manifest",
            keys=unknown,
        )
    if "harness" not in manifest.model_fields_set and "manifest" not in extra:
        raise InvalidRequest(
            'a manifest needs `harness`, such as {"harness": {"memory": {}}}, or `manifest`, '
            'the name of a named manifest to follow, such as {"manifest": "releases"}',
            code="invalid_manifest",
        )


def check_label_numbers(previous: Manifest | None, new: Manifest) -> None:
    """A label, once declared, keeps its number in every later version; new labels may be added."""
    if previous is None:
        return
    before = previous.harness.memory.labels
    after = new.harness.memory.labels
    for name, label in before.items():
        if name not in after:
            raise InvalidRequest(
                f"label {name!r} was declared with number {label.number} and must stay declared "
                "in later versions",
                code="label_removed",
                label=name,
            )
        if after[name].number != label.number:
            raise InvalidRequest(
                f"label {name!r} keeps number {label.number} in every later version "
                f"(got {after[name].number})",
                code="label_renumbered",
                label=name,
            )
