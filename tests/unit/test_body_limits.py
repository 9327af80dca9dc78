"""Hostile request bodies refused on their text, before any parser meets them
(api/body_limits.py), and tool executions recorded no deeper than they read back."""

from __future__ import annotations

import json
import time

import pytest

from agent_memory.api.body_limits import (
    MAX_BODY_BYTES,
    MAX_DEPTH,
    depth,
    refusal,
    without_strings,
)
from agent_memory.domain.kernel.models import utcnow
from agent_memory.domain.records.models import Execution
from agent_memory.domain.tools.service import RECORDED_DEPTH, fitted


def nested(levels: int, leaf: str = '"v"') -> str:
    return '{"a":' * levels + leaf + "}" * levels


@pytest.mark.parametrize(
    "body",
    [
        "",
        "  ",
        "{}",
        '{"a": [1, 2, {"b": null}]}',
        nested(MAX_DEPTH),
        '{"n": 18446744073709551615}',
    ],
)
def test_ordinary_bodies_pass(body):
    assert refusal(body) is None


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ("null", 400, "invalid_request"),
        ("[]", 400, "invalid_request"),
        ('"text"', 400, "invalid_request"),
        ("3", 400, "invalid_request"),
        ("true", 400, "invalid_request"),
        (nested(MAX_DEPTH + 1), 400, "body_too_deep"),
        ("[" * 100_000, 400, "invalid_request"),
        ('{"a":' + "[" * 100_000, 400, "body_too_deep"),
        ('{"n": 123456789012345678901}', 400, "number_too_long"),
        ('{"n": ' + "9" * 5000 + "}", 400, "number_too_long"),
        ('{"n": -0.' + "1" * 30 + "}", 400, "number_too_long"),
        ("{" + " " * MAX_BODY_BYTES + "}", 413, "payload_too_large"),
    ],
)
def test_hostile_bodies_are_refused_with_their_reason(body, status, code):
    refused = refusal(body)
    assert refused is not None and (refused.status, refused.code) == (status, code)


def test_brackets_and_digits_inside_strings_are_text():
    body = json.dumps({"text": "[[[[" * 1000 + "9" * 100, "escaped": 'a \\" [[[ "'})
    assert refusal(body) is None
    assert depth('{"a": [{}]}') == 3


def test_an_execution_is_recorded_no_deeper_than_it_reads_back():
    deep: object = "leaf"
    for _ in range(300):
        deep = {"k": deep}
    execution = Execution(
        id="exe_1",
        turn_id="trn_1",
        tool="add_memory",
        input={"bogus": deep},
        caller={"role": "agent"},
        created_at=utcnow(),
    )
    recorded = fitted(execution)
    text = json.dumps(recorded.model_dump(mode="json"))
    assert depth(text.replace('"', "")) <= RECORDED_DEPTH + 2
    assert Execution.model_validate_json(text).input["bogus"]["k"]["k"]
    assert "nested deeper than 64 levels" in text


@pytest.mark.parametrize(
    "body",
    [
        "{" + '"\\' * 200_000,  # a string left open over escaped quotes
        '{"a' + '\\"' * 200_000 + "\\",  # ... ending in a lone backslash
        "{" + '"a' * 200_000,
    ],
)
def test_strings_left_open_are_read_in_linear_time(body):
    # A pattern that retried from every quote would take hours here (quadratic in 400,000
    # characters); linear, it is a fraction of a second even on a loaded machine.
    started = time.monotonic()
    assert refusal(body) is None  # what is not JSON at all is the route's to refuse
    assert time.monotonic() - started < 10


@pytest.mark.parametrize(
    ("body", "skeleton"),
    [
        (r'{"a": "x\"y", "b": [1]}', '{"": "", "": [1]}'),
        (r'{"a": "x\\", "b": 1}', '{"": "", "": 1}'),
        (r'{"a": "x\\\"[[", "b": 1}', '{"": "", "": 1}'),
        ('{"a": "open', '{"": ""'),
    ],
)
def test_strings_are_emptied_escapes_and_all(body, skeleton):
    assert without_strings(body) == skeleton


@pytest.mark.parametrize(
    "body",
    [
        '{"a": NaN}',
        '{"a": [1, -Infinity]}',
        '{"a": Infinity}',
        '{"a": 1e999}',
        '{"a": -2.5E+400}',
    ],
)
def test_numbers_json_has_not_are_refused(body):
    # Python's parser takes them (NaN, Infinity, and 1e999 as infinity); JSON has no such
    # number, and a free-form manifest field would keep NaN as null
    refused = refusal(body)
    assert refused is not None and (refused.status, refused.code) == (400, "number_not_finite")


@pytest.mark.parametrize(
    "body",
    ['{"a": "NaN"}', '{"NaN": 1}', '{"a": 1e308, "b": -2.5e-400, "c": 0.5E3}', '{"Infinity": "x"}'],
)
def test_the_words_in_strings_and_numbers_within_range_pass(body):
    assert refusal(body) is None
