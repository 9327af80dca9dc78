"""OpenAICompatibleModel against a fake transport: schema output, one repair retry, errors."""

import json
import urllib.error
import urllib.request

import pytest

from agent_memory.adapters.models.openai_compatible import OpenAICompatibleModel, completions_url
from agent_memory.domain.extraction.model import (
    CANDIDATES_SCHEMA,
    Candidate,
    Existing,
    Message,
    ModelOutputInvalid,
    ModelUnavailable,
)
from agent_memory.domain.extraction.pipeline import DEFAULT_INSTRUCTIONS

pytestmark = pytest.mark.unit

MESSAGES = [Message(role="user", text="I live in Paris.", id="D1:1", turn=1)]
CANDIDATE = {"summary": "User lives in Paris", "kind": "fact", "sources": ["D1:1"]}


class FakeServer:
    """Answers each POST with the next of `replies` (a chat completion's content, or a
    (status, raw body) pair), recording the requests."""

    def __init__(self, *replies, usage=(11, 7)):
        self.replies = list(replies)
        self.requests = []
        self.usage = usage

    def __call__(self, url, headers, body, timeout):
        self.requests.append({"url": url, "headers": headers, "body": json.loads(body)})
        reply = self.replies.pop(0)
        if isinstance(reply, tuple):
            return reply
        completion = {
            "id": "c",
            "model": "qwen2.5-7b-instruct",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": reply}}],
        }
        if self.usage:
            completion["usage"] = dict(
                zip(("prompt_tokens", "completion_tokens"), self.usage, strict=True)
            )
        return 200, json.dumps(completion).encode()


def model(server, **kwargs):
    return OpenAICompatibleModel(
        base_url="http://localhost:8080", model="qwen", transport=server, **kwargs
    )


def test_a_valid_reply_is_parsed_and_the_request_asks_for_the_schema():
    server = FakeServer(json.dumps({"candidates": [CANDIDATE]}))
    result = model(server, api_key="k").propose(MESSAGES, "keep facts", ["fact"], {"c": "d"})
    assert result.value == [Candidate(**CANDIDATE)]
    [request] = server.requests
    assert request["url"] == "http://localhost:8080/v1/chat/completions"
    assert request["headers"]["Authorization"] == "Bearer k"
    body = request["body"]
    assert body["model"] == "qwen"
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "memory_candidates", "schema": CANDIDATES_SCHEMA},
    }
    assert body["messages"][0] == {"role": "system", "content": "keep facts"}
    assert '"D1:1"' in body["messages"][1]["content"]
    [usage] = result.usage
    assert (usage.model_id, usage.input_tokens, usage.output_tokens) == (
        "qwen2.5-7b-instruct",
        11,
        7,
    )


def test_blank_instructions_send_the_default_ones():
    server = FakeServer(json.dumps({"candidates": []}))
    model(server).propose(MESSAGES, "", ["fact"], {})
    assert server.requests[0]["body"]["messages"][0]["content"] == DEFAULT_INSTRUCTIONS


def test_a_fenced_reply_is_accepted_without_a_retry():
    server = FakeServer("```json\n" + json.dumps({"candidates": []}) + "\n```")
    assert model(server).propose(MESSAGES, "", ["fact"], {}).value == []
    assert len(server.requests) == 1


def test_malformed_json_gets_one_repair_retry_with_the_bad_output():
    bad = '{"candidates": [{"summary": "User lives in Paris", "kind": "fact"'
    server = FakeServer(bad, json.dumps({"candidates": [CANDIDATE]}))
    result = model(server).propose(MESSAGES, "keep", ["fact"], {})
    assert result.value == [Candidate(**CANDIDATE)]
    assert len(server.requests) == 2
    retry = server.requests[1]["body"]["messages"]
    assert retry[2] == {"role": "assistant", "content": bad}
    assert retry[3]["role"] == "user"
    assert "not valid JSON matching the schema" in retry[3]["content"]
    assert len(result.usage) == 2
    assert result.input_tokens == 22


def test_a_reply_that_breaks_the_schema_is_repaired_too():
    two_lines = {"candidates": [{**CANDIDATE, "summary": "one\ntwo"}]}
    server = FakeServer(json.dumps(two_lines), json.dumps({"candidates": [CANDIDATE]}))
    assert model(server).propose(MESSAGES, "", ["fact"], {}).value == [Candidate(**CANDIDATE)]
    assert "candidates.0.summary" not in server.requests[1]["body"]["messages"][3]["content"]
    assert "one line" in server.requests[1]["body"]["messages"][3]["content"]


def test_the_model_chooses_each_candidates_scope_and_an_unknown_one_is_repaired():
    # Given a model that answers first with a scope the service does not know
    lasting = {**CANDIDATE, "scope": "agent"}
    for_now = {"summary": "User is debugging the login page", "kind": "fact", "scope": "session"}
    server = FakeServer(
        json.dumps({"candidates": [{**CANDIDATE, "scope": "forever"}]}),
        json.dumps({"candidates": [lasting, {**for_now, "sources": []}]}),
    )
    # When it proposes
    result = model(server).propose(MESSAGES, "", ["fact"], {})
    # Then the schema asks for a scope, the bad one was sent back once, and each candidate
    # carries the scope chosen (the review clamps it to scope.write)
    item = CANDIDATES_SCHEMA["properties"]["candidates"]["items"]
    assert "scope" in item["required"]
    assert item["properties"]["scope"]["enum"] == ["session", "agent"]
    assert "scope" in server.requests[1]["body"]["messages"][3]["content"]
    assert [c.scope for c in result.value] == ["agent", "session"]
    # And decide is shown each candidate's scope
    decide = FakeServer(json.dumps({"decisions": []}))
    model(decide).decide(result.value, {})
    assert '"scope": "session"' in decide.requests[0]["body"]["messages"][1]["content"]


def test_malformed_twice_is_a_domain_error():
    server = FakeServer("not json", "still {not json")
    with pytest.raises(ModelOutputInvalid) as raised:
        model(server).propose(MESSAGES, "", ["fact"], {})
    assert raised.value.status == 502
    assert raised.value.code == "model_output_invalid"
    assert "after one repair attempt" in raised.value.message
    assert len(server.requests) == 2


def test_decide_is_one_batched_call():
    decisions = {
        "decisions": [
            {"candidate": 0, "action": "replace", "target": "mem-1", "reason": "corrects"},
            {"candidate": 1, "action": "skip", "target": None, "reason": "restated"},
        ]
    }
    server = FakeServer(json.dumps(decisions), usage=None)
    candidates = [Candidate(**CANDIDATE), Candidate(summary="User likes jazz", kind="fact")]
    neighbours = {0: [Existing(id="mem-1", summary="User lives in Rome", kind="fact")]}
    result = model(server).decide(candidates, neighbours)
    assert [(d.candidate, d.action, d.target) for d in result.value] == [
        (0, "replace", "mem-1"),
        (1, "skip", None),
    ]
    [request] = server.requests
    assert request["body"]["response_format"]["json_schema"]["name"] == "memory_decisions"
    assert '"mem-1"' in request["body"]["messages"][1]["content"]
    # No usage reported: estimated at about four characters per token.
    assert result.usage[0].input_tokens > 0
    assert result.usage[0].output_tokens == (len(json.dumps(decisions)) + 3) // 4


def test_decide_without_candidates_makes_no_call():
    server = FakeServer()
    assert model(server).decide([], {}).value == []
    assert server.requests == []


def test_an_http_error_is_model_unavailable():
    server = FakeServer((503, b'{"error": "loading model"}'))
    with pytest.raises(ModelUnavailable) as raised:
        model(server).propose(MESSAGES, "", ["fact"], {})
    assert raised.value.status == 503
    assert raised.value.details["upstream_status"] == 503


def test_an_unreachable_server_is_model_unavailable(monkeypatch):
    def refuse(request, timeout):
        raise urllib.error.URLError(ConnectionRefusedError(111, "Connection refused"))

    monkeypatch.setattr(urllib.request, "urlopen", refuse)
    unreachable = OpenAICompatibleModel(base_url="http://127.0.0.1:9", model="m", timeout=2)
    with pytest.raises(ModelUnavailable) as raised:
        unreachable.propose(MESSAGES, "", ["fact"], {})
    assert "could not be reached" in raised.value.message


@pytest.mark.parametrize(
    ("base", "url"),
    [
        ("http://h:1", "http://h:1/v1/chat/completions"),
        ("http://h:1/", "http://h:1/v1/chat/completions"),
        ("https://api.openai.com/v1", "https://api.openai.com/v1/chat/completions"),
    ],
)
def test_completions_url(base, url):
    assert completions_url(base) == url
