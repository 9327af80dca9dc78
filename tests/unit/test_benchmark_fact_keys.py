"""The history benchmarks' `--fact-keys` (benchmarks/fact_keys.py): the options, the manifests
they save, and the stub model proposing LoCoMo's observations (benchmarks/observations_stub.py)
as the product's OpenAICompatibleModel reads it. No benchmark is run."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent_memory.adapters.models.openai_compatible import OpenAICompatibleModel
from agent_memory.domain.extraction.model import Existing, Message
from agent_memory.domain.manifests.manifest import Manifest
from benchmark_modules import load_benchmark

pytestmark = pytest.mark.unit

locomo = load_benchmark("locomo")
longmemeval = load_benchmark("longmemeval")
stub = load_benchmark("observations_stub")

OBSERVATIONS = [
    {"text": "Caroline went to a support group.", "dia_ids": ["D1:3"]},
    {"text": "Melanie paints  sunsets.", "dia_ids": ["D2:1", "D1:4"]},
    {"text": "Caroline moved from Sweden.", "dia_ids": ["D1:5"]},
    {"text": "Melanie has two kids.", "dia_ids": ["D1:3", "D1:4"]},
    {"text": "Caroline wants to adopt.", "dia_ids": ["D3:2"]},
]
WINDOW = [
    Message(role="user", text="I went to a support group", id="D1:3", speaker="Caroline"),
    Message(role="user", text="My kids and I paint", id="D1:4", speaker="Melanie"),
]


def _model(observations: list[dict[str, Any]]) -> tuple[OpenAICompatibleModel, list[Any]]:
    """The product's adapter, its HTTP replaced by the stub's answer (and the bodies kept)."""
    sent: list[Any] = []

    def transport(url: str, headers: dict[str, str], body: bytes, timeout: float):
        sent.append(json.loads(body))
        return 200, json.dumps(stub.completion(json.loads(body), observations)).encode()

    model = OpenAICompatibleModel(base_url="http://stub/v1", model=stub.MODEL, transport=transport)
    return model, sent


def test_propose_answers_exactly_the_observations_citing_the_window():
    model, sent = _model(OBSERVATIONS)

    result = model.propose(WINDOW, "", ["fact", "event"], {})

    # D1:5, D2:1 and D3:2 are not in the window: those observations are left out, and a source
    # outside it is not cited.
    assert [(c.summary, c.sources, c.kind) for c in result.value] == [
        ("Caroline went to a support group.", ["D1:3"], "fact"),
        ("Melanie paints sunsets.", ["D1:4"], "fact"),
        ("Melanie has two kids.", ["D1:3", "D1:4"], "fact"),
    ]
    assert len(sent) == 1  # valid at the first try: no repair call
    answer = stub.completion(sent[0], OBSERVATIONS)
    assert [(u.model_id, u.input_tokens, u.output_tokens) for u in result.usage] == [
        (stub.MODEL, answer["usage"]["prompt_tokens"], answer["usage"]["completion_tokens"])
    ]


def test_propose_for_a_window_no_observation_cites_is_empty():
    model, _ = _model(OBSERVATIONS)
    other = [Message(role="user", text="hi", id="D9:1")]

    assert model.propose(other, "", ["fact"], {}).value == []


def test_decide_skips_every_candidate():
    model, _ = _model(OBSERVATIONS)
    candidates = model.propose(WINDOW, "", ["fact"], {}).value
    shown = {1: [Existing(id="r1", summary="Melanie paints.", kind="fact")]}

    result = model.decide(candidates, shown)

    assert [(d.candidate, d.action, d.target) for d in result.value] == [
        (0, "skip", None),
        (1, "skip", None),
        (2, "skip", None),
    ]
    assert len(result.usage) == 1 and result.usage[0].input_tokens > 0


@pytest.mark.parametrize(
    "body",
    [
        {"messages": [{"role": "user", "content": "hi"}]},
        {
            "messages": [{"role": "user", "content": "hi"}],
            "response_format": {"json_schema": {"name": "memory_other"}},
        },
        {
            "messages": [{"role": "user", "content": "no window here"}],
            "response_format": {"json_schema": {"name": stub.PROPOSE}},
        },
    ],
    ids=["no schema", "unknown output", "no window"],
)
def test_a_request_the_stub_cannot_answer_is_refused(body):
    server = stub.ObservationsServer()

    with pytest.raises(stub.StubRequestError):
        server.answer(body)
    assert server.calls == {stub.PROPOSE: 0, stub.DECIDE: 0}


def test_the_stub_answers_from_the_conversation_it_serves():
    server = stub.ObservationsServer()
    model, sent = _model(OBSERVATIONS)
    model.propose(WINDOW, "", ["fact"], {})
    body = sent[0]  # a propose request as the adapter sends it

    server.serve(OBSERVATIONS[:1])
    first = server.answer(body)
    server.serve(OBSERVATIONS)
    second = server.answer(body)

    def summaries(answer: dict[str, Any]) -> list[str]:
        content = json.loads(answer["choices"][0]["message"]["content"])
        return [c["summary"] for c in content["candidates"]]

    assert summaries(first) == ["Caroline went to a support group."]
    assert len(summaries(second)) == 3
    assert server.calls == {stub.PROPOSE: 2, stub.DECIDE: 0}


# -- the options and the manifests they save ---------------------------------------------------


def test_locomo_fact_keys_default_to_none():
    args = locomo.parse_args(["--target", "history", "--out", "/tmp/x.json"])

    assert args.fact_keys == "none"


@pytest.mark.parametrize("keys", ["rule", "observations"])
def test_locomo_history_takes_fact_keys(keys):
    args = locomo.parse_args(["--target", "history", "--out", "/tmp/x.json", "--fact-keys", keys])

    assert args.fact_keys == keys


@pytest.mark.parametrize(
    "argv, says",
    [
        (["--target", "records", "--fact-keys", "rule"], "--fact-keys is for --target history"),
        (["--target", "history", "--fact-keys", "model"], "invalid choice: 'model'"),
        (
            ["--target", "history", "--fact-keys", "observations", "--url", "http://x"],
            "drop --url",
        ),
    ],
)
def test_locomo_refuses_fact_keys_it_cannot_measure(argv, says, capsys):
    with pytest.raises(SystemExit) as exit_:
        locomo.parse_args([*argv, "--out", "/tmp/x.json"])

    assert exit_.value.code == 2
    assert says in capsys.readouterr().err


def test_longmemeval_takes_rule_keys_but_has_no_observations(capsys):
    assert longmemeval.parse_args(["--out", "/tmp/x.json"]).fact_keys == "none"
    assert longmemeval.parse_args(["--out", "/tmp/x.json", "--fact-keys", "rule"]).fact_keys == (
        "rule"
    )
    with pytest.raises(SystemExit):
        longmemeval.parse_args(["--out", "/tmp/x.json", "--fact-keys", "observations"])
    assert "invalid choice: 'observations'" in capsys.readouterr().err


@pytest.mark.parametrize(
    "document",
    [
        lambda keys: locomo.history_manifest(0.3, keys),
        lambda keys: longmemeval.manifest("lexical", "sessions", keys),
    ],
    ids=["locomo", "longmemeval"],
)
def test_only_keys_other_than_none_review_turns(document):
    off = Manifest.model_validate(document("none"))
    on = Manifest.model_validate(document("rule"))

    assert not off.harness.memory.extracts
    assert on.harness.memory.extracts and on.harness.memory.extraction.every == "turn"
    # Everything search reads is the same either way.
    assert off.harness.memory.search == on.harness.memory.search
    # The keys are asked for explicitly (the rule-based model keys nothing by default).
    assert (off.harness.history.fact_keys, on.harness.history.fact_keys) == (None, True)
    assert off.harness.history == on.harness.history.model_copy(update={"fact_keys": None})
