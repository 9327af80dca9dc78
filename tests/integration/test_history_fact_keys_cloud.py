"""Fact keys end to end in the cloud shape (#16 item 6): a turn's post-turn review, run by the
real state machine under moto with the rule-based model, keeps the facts it proposed on the
turn item; the indexer function makes their key document from the table's stream; and a
history search phrased like the fact finds the message it was drawn from (tests/cloud_shape.py:
DynamoDB under moto, OpenSearch on osmem-server, which has no k-NN, so words alone find it)."""

from __future__ import annotations

import pytest

from manifests import memory_manifest

pytestmark = pytest.mark.integration

pytest.importorskip("osmem_server", reason="osmem-server (dev extra) is not installed")

A = "/v1/agents/teams/pets"
CALLER = {"role": "agent"}
SAID = "I adopted a greyhound named Pixel"
# What the rule-based model proposes from SAID is "User adopted a greyhound named Pixel": of
# its words only "user" is not in the message, so the message's own document cannot match.
ASKED = "user"


def test_a_question_phrased_like_a_reviewed_fact_finds_the_message_through_its_key(tmp_path):
    from cloud_shape import cloud_shape

    with cloud_shape(tmp_path, execute=True) as cloud:
        api = cloud.api
        manifest = memory_manifest(history="messages")
        # The rule-based model restates the message: its facts key nothing unless asked to.
        manifest["harness"]["history"]["fact_keys"] = True
        api.ok("PUT", A, manifest, expect=201)
        session = api.ok("POST", f"{A}/-/sessions", expect=201)["id"]

        def begin() -> str:
            turn = api.ok("POST", f"{A}/-/sessions/{session}/turns", expect=201)["id"]
            return f"{A}/-/sessions/{session}/turns/{turn}"

        def search(turn: str) -> list[dict]:
            return api.ok(
                "POST", f"{turn}/tools/search_history", {"query": ASKED, "caller": CALLER}
            )["output"]["events"]

        # Given the message, committed and indexed, before its review has run
        said = begin()
        api.ok("POST", f"{said}/events", {"events": [{"role": "user", "text": SAID}]})
        api.ok("POST", f"{said}/commit")
        cloud.index_stream()
        assert search(begin()) == []

        # When its review finishes and the indexer sees the turn item's change
        cloud.wait_for_executions()
        review = api.ok("GET", said)["extraction"]
        assert (review["status"], review["added"]) == ("done", 1)
        cloud.meter.take()
        assert cloud.index_stream() > 2  # the turn item changed more than once, among others
        tally = cloud.meter.take()
        # Two documents embedded and written: the memory the review added and the event's key
        # document, once however many times the turn item changed.
        assert (tally.count("bedrock-runtime.InvokeModel"), tally.bulk_items) == (2, 2)

        # Then the question finds the message, through the key document of its event
        [hit] = search(begin())
        assert hit["text"].endswith(SAID)  # under its turn's heading
        assert hit["turnId"] == said.rsplit("/", 1)[1]
