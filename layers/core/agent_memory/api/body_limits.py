"""What a request body may be, checked on its text before anything parses it (both shapes: the
embedded server and the Lambda function both call Api.handle).

A parser meets hostile JSON too late: `json.loads` recurses once a nesting level and gives up
near 1,000 (a RecursionError, not a ValueError), pydantic stops at a lower depth, `int()` refuses
literals over 4,300 digits, Python's parser takes NaN and Infinity (which JSON has not), and an execution nested past what a store reads back cannot be
shown again. Each is refused here as a 400 that changes nothing.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from ..domain.kernel.patterns import Pattern

MAX_BODY_BYTES = 10 * 1024 * 1024  # API Gateway's own payload limit
MAX_DEPTH = 64
MAX_DIGITS = 20  # a 64-bit integer has at most 20

# A JSON string, escapes included. Possessive, and an open string (or a final backslash) runs
# to the end instead of failing: a pattern that can fail would be tried again from every later
# quote of an open string (`"\\"\\"\\"...`), which is quadratic; this one is linear on any input.
_STRING = Pattern(r'"(?:[^"\\]++|\\(?:.|\Z))*+(?:"|\Z)', re.DOTALL)
_BRACKETS = Pattern(r"[\[\]{}]")
_LONG_NUMBER = Pattern(rf"[0-9]{{{MAX_DIGITS + 1},}}")
# Python's json reads NaN, Infinity and -Infinity, which JSON has not: a manifest's free-form
# field would keep NaN as null (its JSON form), a value nobody sent.
_NOT_A_NUMBER = Pattern(r"(?<![\w.])-?(?:NaN|Infinity)(?!\w)")
# And a number past a float's range (1e999) is read as infinity.
_EXPONENT = Pattern(r"-?[0-9]+(?:\.[0-9]+)?[eE][+-]?[0-9]+")


@dataclass(frozen=True)
class BodyRefused:
    status: int
    code: str
    message: str


def refusal(body: str) -> BodyRefused | None:
    """Why `body` (a request's text) is refused before parsing, or None. Bodies are JSON
    objects; what is not JSON at all is left to the route's own validation."""
    if len(body) > MAX_BODY_BYTES or len(body.encode()) > MAX_BODY_BYTES:
        return BodyRefused(
            413, "payload_too_large", f"request bodies are at most {MAX_BODY_BYTES} bytes"
        )
    skeleton = without_strings(body).strip()
    if not skeleton:
        return None
    if not skeleton.startswith("{"):
        return BodyRefused(
            # The code pydantic's validation gives a body of the wrong shape.
            400,
            "invalid_request",
            "the request body must be a JSON object ({...})",
        )
    if depth(skeleton) > MAX_DEPTH:
        return BodyRefused(
            400, "body_too_deep", f"the request body nests deeper than {MAX_DEPTH} levels"
        )
    if _LONG_NUMBER.search(skeleton):
        return BodyRefused(
            400,
            "number_too_long",
            f"a number in the request body has more than {MAX_DIGITS} digits",
        )
    if _NOT_A_NUMBER.search(skeleton) or any(
        math.isinf(float(m.group())) for m in _EXPONENT.finditer(skeleton)
    ):
        return BodyRefused(
            400,
            "number_not_finite",
            "NaN and Infinity are not JSON numbers: send a number, or the value as a string",
        )
    return None


def without_strings(body: str) -> str:
    """`body` with each JSON string emptied (`"..."` to `""`): strings hold anything, and what
    is left is the structure, keys' places and scalars."""
    return _STRING.sub('""', body)


def depth(skeleton: str) -> int:
    """How deep arrays and objects nest in JSON text whose strings were taken out."""
    deepest = level = 0
    for bracket in _BRACKETS.finditer(skeleton):
        level += 1 if bracket.group() in "[{" else -1
        deepest = max(deepest, level)
    return deepest
