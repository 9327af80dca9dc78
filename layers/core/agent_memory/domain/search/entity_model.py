"""The model-backed entity extractor: where a model provider is configured
(AGENT_MEMORY_ENTITY_MODEL), the names and salient noun phrases of records, file memories and
history events are asked of a model as well, and its keys are linked beside the rules' keys.

Why a server setting and not a manifest field: the extraction model and the embedding model are
the deployment's choice (AGENT_MEMORY_EXTRACTION_MODEL, AGENT_MEMORY_EMBEDDINGS), made where its
credentials and endpoints are; entity links are derived index data, written by the indexer (the
cloud's stream indexer reads no manifest), and the keys they hold are the same whether or not an
agent's search follows them (harness.history.entity_links is that per-agent choice).

Never on a request's critical path: a write links the rules' keys (entities.py) at once, in its
own transaction or in the stream indexer, and the model's keys are added when the model answers:
embedded, by a background thread over a queue in the SQLite file (adapters/sqlite/
entity_worker.py); in the cloud, by the stream indexer after the batch is indexed (ModelLinkedIndex
below). A document's model keys are those of its text: a new version with a new text drops them
and asks again, a version with the same text (a label or status change) keeps them, and an
answer for a text the document no longer has is dropped (links.py: `link_model`).

Bounded: at most ENTITY_BATCH texts a call, each cut to MODEL_TEXT_CHARS, at most MAX_ENTITIES
keys kept a text, each normalised as the rules' keys are (entities.name_key), so a model's
`Caroline's` meets the rules' `caroline`. Every call is usage of purpose `entities`. A call that
fails leaves the rules' keys in place: logged, and tried again (embedded: the queue keeps it; the
cloud: ENTITY_ATTEMPTS tries with backoff, then `agent-memory reindex` asks again).

The query side stays with the rules: a search must not wait for a model (a call costs 0.3-2 s,
more than the whole search), and a query's key meets a model's key because both are normalised
alike. The model's noun phrases (`pottery`, `adoption agency`) are what the rules cannot see, and
what the second hop follows: two memories that share one link a question that names neither.
"""

from __future__ import annotations

import logging
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..kernel.ids import new_id
from ..kernel.models import utcnow
from ..usage import Usage
from .entities import MAX_ENTITIES, name_key
from .index import IndexDoc, SearchIndex
from .links import EntityLinks, LinkedIndex, text_sha

logger = logging.getLogger(__name__)

ENTITY_BATCH = 16  # texts a model call
MODEL_TEXT_CHARS = 4_000  # of a text, what the model reads (a long memory's start names most)
ENTITY_ATTEMPTS = 3  # the cloud's tries of one batch before the rules' keys are left alone
ENTITY_PURPOSE = "entities"

ENTITY_INSTRUCTIONS = (
    "You index texts for search. For each numbered text, list the named entities it mentions "
    "(people, pets, places, organisations, products, works, events) and its salient noun "
    "phrases (hobbies, activities, objects, topics: 'pottery', 'adoption agency', 'camping "
    "trip'). Write each as it appears in the text, at most four words, at most "
    f"{MAX_ENTITIES} a text, the most salient first. Leave out dates, times, numbers, pronouns "
    "and generic words ('thing', 'day', 'people'). A text that names nothing gets an empty list."
)


class EntityModelFailed(Exception):
    """The model refused, failed, or answered out of shape; the rules' keys stand."""


@dataclass(frozen=True)
class Named:
    """What one call answered: the names of each text, in order, and the tokens it took."""

    names: list[list[str]]
    model_id: str
    input_tokens: int
    output_tokens: int = 0


@dataclass(frozen=True)
class EntityAnswer:
    """The keys of each text, normalised and capped, and the call's usage."""

    keys: list[tuple[str, ...]]
    model_id: str
    input_tokens: int
    output_tokens: int


def entity_prompt(texts: Sequence[str]) -> str:
    return "\n\n".join(f"Text {n}:\n{text[:MODEL_TEXT_CHARS]}" for n, text in enumerate(texts))


class EntityModel(ABC):
    """Adapters: BedrockEntityModel (Converse), OpenAIEntityModel (/v1/chat/completions). The
    base cuts, batches, normalises and caps; an adapter makes one call (`_names`)."""

    model_id: str

    def extract(self, texts: Sequence[str]) -> EntityAnswer:
        """The keys of each text (at most ENTITY_BATCH of them)."""
        if len(texts) > ENTITY_BATCH:
            raise ValueError(f"at most {ENTITY_BATCH} texts a call")
        named = self._names([t[:MODEL_TEXT_CHARS] for t in texts])
        if len(named.names) != len(texts):
            raise EntityModelFailed(
                f"the model answered for {len(named.names)} texts of {len(texts)}"
            )
        return EntityAnswer(
            [model_keys(names) for names in named.names],
            named.model_id,
            named.input_tokens,
            named.output_tokens,
        )

    @abstractmethod
    def _names(self, texts: list[str]) -> Named:
        """One call: the names of each text, in order. Raises EntityModelFailed."""


def model_keys(names: Sequence[object]) -> tuple[str, ...]:
    """A model's names as keys: normalised as the rules' (name_key), once each, at most
    MAX_ENTITIES; what is not a string or not a key is dropped."""
    found: dict[str, None] = {}
    for name in names:
        key = name_key(name) if isinstance(name, str) else None
        if key is not None:
            found.setdefault(key)
        if len(found) >= MAX_ENTITIES:
            break
    return tuple(found)


def usage_of(answer: EntityAnswer, on: Sequence[tuple[str, str | None, str | None]]) -> list[Usage]:
    """A call's usage (purpose entities) shared out over its texts, each on (agent, session,
    turn) that wrote it; the tokens add up to the call's."""
    out = []
    for n, (agent_id, session_id, turn_id) in enumerate(on):
        out.append(
            Usage(
                id=new_id("use"),
                agent_id=agent_id,
                session_id=session_id,
                turn_id=turn_id,
                purpose=ENTITY_PURPOSE,
                model_id=answer.model_id,
                input_tokens=_share(answer.input_tokens, n, len(on)),
                output_tokens=_share(answer.output_tokens, n, len(on)),
                at=utcnow(),
            )
        )
    return out


def _share(total: int, n: int, of: int) -> int:
    return total // of + (1 if n < total % of else 0)


def billed_to(doc: IndexDoc) -> tuple[str, str | None, str | None]:
    """Whom the model's reading of a document is billed to: the turn that wrote it, if told."""
    embed = doc.embed
    if embed is not None:
        return doc.agent_id, embed.session_id, embed.turn_id
    return doc.agent_id, doc.session_id, None


AddUsage = Callable[[str, str, list[Usage]], None]


class ModelLinkedIndex(LinkedIndex):
    """The cloud's index writing entity links as LinkedIndex does, then asking the model for the
    documents whose text it has no keys of yet, after the batch is written: the stream indexer's
    writes never wait on it, and a failed call leaves the rules' keys (logged)."""

    def __init__(
        self,
        index: SearchIndex,
        links: EntityLinks,
        model: EntityModel,
        add_usage: AddUsage | None = None,
        backoff_seconds: float = 0.5,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        super().__init__(index, links)
        self.model = model
        self._add_usage = add_usage
        self._backoff = backoff_seconds
        self._sleep = sleep

    def upsert(self, docs: Sequence[IndexDoc]) -> None:
        self.inner.upsert(docs)
        pending = self._links.link(docs)
        for at in range(0, len(pending), ENTITY_BATCH):
            self._ask(pending[at : at + ENTITY_BATCH])

    def _ask(self, docs: Sequence[IndexDoc]) -> None:
        answer = None
        for attempt in range(ENTITY_ATTEMPTS):
            try:
                answer = self.model.extract([d.text for d in docs])
                break
            except EntityModelFailed:
                logger.warning(
                    "entity model call failed; the rules' keys stand",
                    extra={"documents": len(docs), "attempt": attempt + 1},
                    exc_info=True,
                )
                if attempt + 1 < ENTITY_ATTEMPTS:
                    self._sleep(self._backoff * 2**attempt)
        if answer is None:
            return
        usage: dict[tuple[str, str], list[Usage]] = {}
        rows = usage_of(answer, [billed_to(d) for d in docs])
        for doc, keys, row in zip(docs, answer.keys, rows, strict=True):
            self._links.link_model(doc, text_sha(doc.text), keys)
            usage.setdefault((doc.tenant, doc.agent_id), []).append(row)
        if self._add_usage is None:
            return
        for (tenant, agent_id), rows in usage.items():
            try:
                self._add_usage(tenant, agent_id, rows)
            except Exception:  # noqa: BLE001 - bookkeeping: the keys are linked
                logger.exception("entity model usage not kept", extra={"agent_id": agent_id})
