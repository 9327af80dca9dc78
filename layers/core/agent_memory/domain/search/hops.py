"""Entity hops: a question that needs two memories ("What do Caroline and Melanie both enjoy?")
is answered by items that share an entity, not by one item that resembles the question.

The query's entities (entities.py) pull in the documents that mention them (the first hop); the
entities those documents share with each other, beyond the query's, pull in the documents that
mention those (the second hop). Each hop adds to a document's score a share of the best score of
the ranking, the second hop's share smaller than the first's, so a document found by both words
and entities rises, and one found only by an entity comes in below what the words found.

Bounded: an entity mentioned by more than HOP_FANOUT documents picks nothing out (in a
conversation, its speakers mention half of it) and is passed over; the second hop follows at most
SECOND_HOP_ENTITIES entities. Off by default (harness.history.entity_links).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

from .entities import entities
from .index import DocKind
from .links import EntityLinks, Mention
from .ranking import Ranked

HOP_FANOUT = 40  # documents an entity may mention and still pick some out
FIRST_HOP = 0.2  # of the ranking's best score, a query entity a document mentions
SECOND_HOP = 0.08  # of the best score, an entity shared by the first hop's documents
SECOND_HOP_ENTITIES = 4


@dataclass(frozen=True)
class Reach:
    """The documents a query's entities reach: each first-hop document with the number of the
    query's entities it mentions, each second-hop one with the number of shared entities that
    reach it, and the mention that names each."""

    first: Counter[str]
    second: Counter[str]
    found: dict[str, Mention]


def entity_hops(
    ranked: Sequence[Ranked],
    query: str,
    links: EntityLinks,
    tenant: str,
    agent_id: str,
    kind: DocKind = "event",
) -> list[Ranked]:
    """`ranked` with the documents the query's entities reach added or raised, best first."""
    if not ranked:
        return list(ranked)
    return hopped(ranked, entity_reach(query, links, tenant, agent_id, kind))


def entity_reach(
    query: str, links: EntityLinks, tenant: str, agent_id: str, kind: DocKind = "event"
) -> Reach | None:
    """What the query's entities reach through `links`; None when they reach nothing."""
    asked = entities(query)
    if not asked:
        return None
    first: Counter[str] = Counter()
    found: dict[str, Mention] = {}
    for key in asked:
        for mention in _picked(links, tenant, agent_id, key, kind):
            first[mention.id] += 1
            found.setdefault(mention.id, mention)
    if not first:
        return None
    shared: Counter[str] = Counter()
    for keys in links.entities_of(tenant, agent_id, kind, list(first)).values():
        shared.update(k for k in keys if k not in asked)
    second: Counter[str] = Counter()
    for key, together in shared.most_common(SECOND_HOP_ENTITIES):
        if together < 2:
            break  # an entity one document has is not shared
        for mention in _picked(links, tenant, agent_id, key, kind):
            if mention.id not in first:
                second[mention.id] += 1
                found.setdefault(mention.id, mention)
    return Reach(first, second, found)


def hopped(ranked: Sequence[Ranked], reach: Reach | None) -> list[Ranked]:
    """`ranked` with what `reach` reached added or raised (a share of the ranking's best score a
    hop), best first."""
    if reach is None or not ranked:
        return list(ranked)
    top = max(r.score for r in ranked) or 1.0
    bonus = {doc_id: FIRST_HOP * n * top for doc_id, n in reach.first.items()}
    for doc_id, n in reach.second.items():
        bonus[doc_id] = SECOND_HOP * min(n, 2) * top
    out = [replace(r, score=r.score + bonus.pop(r.id, 0.0)) for r in ranked]
    for doc_id, extra in bonus.items():
        mention = reach.found[doc_id]
        out.append(
            Ranked(
                id=doc_id,
                score=extra,
                session_id=mention.session_id,
                created_at=mention.created_at,
            )
        )
    return sorted(
        out, key=lambda r: (r.score, r.created_at is not None, r.created_at), reverse=True
    )


def _picked(
    links: EntityLinks, tenant: str, agent_id: str, key: str, kind: DocKind
) -> list[Mention]:
    mentions = links.mentions(tenant, agent_id, key, kind, HOP_FANOUT + 1)
    return mentions if len(mentions) <= HOP_FANOUT else []
