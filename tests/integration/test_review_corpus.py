"""The corpus of tests/review_corpus.py end to end, on SQLite and on DynamoDB (moto), with the
offline embedder: each case's memories are written in one turn, what the speaker says is
committed as the next, and its review is drained; what the review left decides the case. The
floors hold with the rule-based model and with a model that adds whatever it proposes (the
review's own check, not the model, skips, replaces and drops)."""

from __future__ import annotations

from collections import Counter

import pytest

from agent_memory.api.app import Api
from agent_memory.bootstrap import build_services
from agent_memory.domain.extraction.model import (
    Candidate,
    Decision,
    Existing,
    MemoryModel,
    Message,
    ModelResult,
)
from agent_memory.settings import Settings
from apiclient import ApiClient
from review_corpus import CASES, FLOORS, Case

pytestmark = pytest.mark.integration


class Credulous(MemoryModel):
    """Proposes what the case says a careful model would (a correction when the speaker says
    "actually"), and adds every candidate."""

    model_id = "credulous"

    def __init__(self) -> None:
        self.proposed: tuple[str, ...] = ()

    def propose(
        self, messages: list[Message], instructions: str, kinds: list[str], labels: dict[str, str]
    ) -> ModelResult[list[Candidate]]:
        sources = [m.id for m in messages if m.id]
        correction = any("actually" in m.text.lower() for m in messages)
        return ModelResult(
            [
                Candidate(
                    summary=s, kind="fact", sources=sources, scope="agent", correction=correction
                )
                for s in self.proposed
            ]
        )

    def decide(
        self, candidates: list[Candidate], neighbours: dict[int, list[Existing]]
    ) -> ModelResult[list[Decision]]:
        return ModelResult([Decision(candidate=i, action="add") for i in range(len(candidates))])


@pytest.fixture(params=["rule_based", "credulous"])
def reviewed(request, store, tmp_path, embedder):
    model = Credulous() if request.param == "credulous" else True
    services = build_services(
        Settings(data_dir=tmp_path), store=store, embedder=embedder, model=model
    )
    return ApiClient(Api(services).handle), services, model


def outcome(api: ApiClient, services, model, number: int, case: Case) -> str:
    """What the case's review did: skip, replace, add, drop or one (tests/review_corpus.py)."""
    if isinstance(model, Credulous):
        model.proposed = case.proposed
    agent = f"/v1/agents/review/c{number}"
    memory = {"enabled": True, "scope": {"read": ["agent"], "write": ["agent"]},
              "tools": ["add_memory"]}  # fmt: skip
    api.ok("PUT", agent, {"harness": {"memory": memory}}, expect=201)
    session = api.ok("POST", f"{agent}/-/sessions", expect=201)["id"]
    turns = f"{agent}/-/sessions/{session}/turns"
    ids = []
    if case.existing:
        writer = f"{turns}/{api.ok('POST', turns, {}, expect=201)['id']}"
        for summary in case.existing:
            body = {"summary": summary, "scope": "agent", "caller": {"role": "agent"}}
            status, out = api.call("POST", f"{writer}/tools/add_memory", body)
            assert status == 200, out
            ids.append(out["output"]["memories"][0]["id"])
        api.ok("POST", f"{writer}/commit")
        services.drain_extractions()
    reviewed = f"{turns}/{api.ok('POST', turns, {}, expect=201)['id']}"
    events = [
        {"role": "user", "text": text, "metadata": {"speaker": case.speaker}} for text in case.said
    ]
    api.ok("POST", f"{reviewed}/events", {"events": events})
    api.ok("POST", f"{reviewed}/commit")
    services.drain_extractions()
    assert api.ok("GET", reviewed)["extraction"]["status"] == "done"
    new = [r for r in api.ok("GET", f"{agent}/-/records")["records"] if r["id"] not in ids]
    kept = [api.ok("GET", f"{agent}/-/records/{i}")["status"] == "ACTIVE" for i in ids]
    if not new:
        return ("skip" if all(kept) else "lost") if ids else "drop"
    if ids and len(new) == 1 and new[0].get("replaces") == ids[0] and not kept[0]:
        return "replace"
    if not all(kept):
        return "lost"
    return "one" if len(new) == 1 and len(case.said) > 1 else "add"


def test_restatements_are_skipped_corrections_replace_and_lookalikes_stay(reviewed):
    # Given the corpus, each case reviewed on its own agent
    api, services, model = reviewed
    right: Counter[str] = Counter()
    total: Counter[str] = Counter()
    misses = []
    for number, case in enumerate(CASES):
        got = outcome(api, services, model, number, case)
        total[case.group] += 1
        if got == case.expect:
            right[case.group] += 1
        else:
            misses.append(f"{case.group}/{case.name}: expected {case.expect}, got {got}")
    # Then every group holds its floor
    shares = {group: right[group] / total[group] for group in total}
    assert set(shares) == set(FLOORS)
    for group, floor in FLOORS.items():
        assert shares[group] >= floor, (group, shares[group], misses)
