"""benchmarks/observations_stub.py over real HTTP: the embedded server's `openai` extraction
model, pointed at it as `locomo.py --fact-keys observations` does, gets LoCoMo's observations
citing the window and a skip for each; a request it cannot answer is a 400."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest

from agent_memory.adapters.models.openai_compatible import OpenAICompatibleModel
from agent_memory.bootstrap import build_model
from agent_memory.domain.extraction.model import Message
from agent_memory.settings import Settings
from benchmark_modules import load_benchmark

pytestmark = pytest.mark.e2e

stub = load_benchmark("observations_stub")

OBSERVATIONS = [
    {"text": "Caroline went to a support group.", "dia_ids": ["D1:3"]},
    {"text": "Caroline moved from Sweden.", "dia_ids": ["D1:5"]},
]


def test_the_model_the_servers_settings_make_reads_the_stub(monkeypatch):
    with stub.ObservationsServer() as server:
        server.serve(OBSERVATIONS)
        for name, value in server.env().items():
            monkeypatch.setenv(name, value)
        model = build_model(Settings())
        assert isinstance(model, OpenAICompatibleModel)

        proposed = model.propose([Message(role="user", text="...", id="D1:3")], "", ["fact"], {})
        decided = model.decide(proposed.value, {})

    assert [(c.summary, c.sources) for c in proposed.value] == [
        ("Caroline went to a support group.", ["D1:3"])
    ]
    assert [(d.candidate, d.action) for d in decided.value] == [(0, "skip")]
    assert server.calls == {stub.PROPOSE: 1, stub.DECIDE: 1}


def test_a_request_the_stub_cannot_answer_is_a_400_and_counts_nothing():
    with stub.ObservationsServer() as server:
        request = urllib.request.Request(
            server.base_url + "/chat/completions",
            data=json.dumps({"messages": []}).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=10)

        assert refused.value.code == 400
        assert (
            "not a structured chat request" in json.loads(refused.value.read())["error"]["message"]
        )
        assert server.calls == {stub.PROPOSE: 0, stub.DECIDE: 0}
