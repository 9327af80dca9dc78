"""Finding secrets in text, and taking them out. Pure functions over strings: no I/O."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

from ..kernel.patterns import Pattern
from .cards import card_spans
from .checks import is_placeholder
from .context import national_id_spans, password_spans
from .rules import ASSIGNMENT, KEY_LIKE_NAME, KEY_WORDS, RULES, TO_SIGN

# What an assigned value must look like to count: long enough, and as varied as a generated
# password or key (bits a character, Shannon). English words and counters stay below it.
MIN_ASSIGNED_CHARS = 8
MIN_ENTROPY = 3.0
# How much of a text's assignments is judged (see _assigned_matches and looks_random).
JUDGED_CHARS = 64
MAX_ASSIGNMENTS = 5_000
_AWS_SECRET = Pattern(r"^[A-Za-z0-9/+]{40}$")
_NUMERIC = Pattern(r"^[0-9.,_-]+$")
# A name that counts or describes rather than holds: `max_tokens: 100000`, `token_type: ...`.
_NOT_A_HOLDER = Pattern(
    r"(?i)(?:count|limit|max|min|type|len|length|size|usage|expir|ttl|url|uri|path|file|name"
    r"|_id$|tokens?_used|budget|policy|hint)"
)


@dataclass(frozen=True)
class Finding:
    """One secret: its kind, the line it starts on (1-based) and where it is in the text."""

    kind: str
    line: int
    start: int
    end: int


def entropy(value: str) -> float:
    """Shannon entropy in bits a character."""
    counts = Counter(value)
    total = len(value)
    return -sum(n / total * math.log2(n / total) for n in counts.values())


def looks_random(value: str) -> bool:
    """Whether an assigned value looks like a secret rather than a word, a number or a
    placeholder."""
    # Judged on its start: what makes a value random shows there, and a text of a thousand
    # long assignments (`password=password=...`) costs each one no more than that.
    head = value[:JUDGED_CHARS]
    if len(head) < MIN_ASSIGNED_CHARS or _NUMERIC.match(head) or is_placeholder(head):
        return False
    return entropy(head) >= MIN_ENTROPY


def _word_char(text: str, at: int) -> bool:
    return at >= 0 and (text[at].isalnum() or text[at] == "_")


def _provider_matches(text: str, lowered: str) -> Iterator[tuple[int, int, int, str]]:
    for priority, rule in enumerate(RULES):
        if rule.hints and not any(hint in lowered for hint in rule.hints):
            continue
        for match in rule.pattern.finditer(text):
            if rule.boundary and _word_char(text, match.start() - 1):
                continue  # inside a longer word: `task-...` is no `sk-...`
            if rule.check is not None and not rule.check(match):
                continue
            start, end = match.span("value") if "value" in rule.pattern.groupindex else match.span()
            yield start, priority, end, rule.kind


_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
NAME_MAX_CHARS = 64


def _name_before(text: str, at: int) -> str:
    """The name an assignment at `at` assigns to: `name`, `"name"`, `name ` before the sign."""
    end = at
    while end > 0 and text[end - 1] in " \t":
        end -= 1
    if end > 0 and text[end - 1] in "\"'":
        end -= 1
    start = end
    while start > 0 and end - start < NAME_MAX_CHARS and text[start - 1] in _NAME_CHARS:
        start -= 1
    return text[start:end]


def _assigned_matches(text: str, lowered: str) -> Iterator[tuple[int, int, int, str]]:
    # Judging an assignment costs tens of microseconds; a text made of them (`password=` a
    # million times over) would cost seconds. So each key word is looked at in its first
    # 4 x MAX_ASSIGNMENTS places and only the first MAX_ASSIGNMENTS assignments are judged:
    # past them a value is found only by its provider's format (see RESULTS.md).
    signs: set[int] = set()
    for word in KEY_WORDS:
        at = lowered.find(word)
        for _ in range(4 * MAX_ASSIGNMENTS):
            if at < 0:
                break
            to_sign = TO_SIGN.match(lowered, at + len(word))
            if to_sign is not None:
                signs.add(to_sign.end())
            at = lowered.find(word, at + len(word))
    taken = 0
    for sign in sorted(signs)[:MAX_ASSIGNMENTS]:
        match = ASSIGNMENT.match(text, sign)
        if match is None or sign < taken:
            continue
        name, value = _name_before(text, sign), match.group("value")
        if not KEY_LIKE_NAME.search(name) or _NOT_A_HOLDER.search(name):
            continue
        start, end = match.span("value")
        if "aws" in name.lower() and _AWS_SECRET.match(value):
            yield start, len(RULES), end, "aws_secret_access_key"
        elif looks_random(value):
            yield start, len(RULES) + 1, end, "secret_assignment"
        else:
            continue
        taken = end


def _contextual_matches(text: str, lowered: str) -> Iterator[tuple[int, int, int, str]]:
    # After the provider formats and the assignments: `password=ghp_...` is a GitHub token,
    # `password: X` an assignment when X is random enough, a password in prose otherwise.
    after = len(RULES) + 2
    for start, end in card_spans(text):
        yield start, after, end, "card_number"
    for start, end in national_id_spans(text, lowered):
        yield start, after + 1, end, "national_id"
    for start, end in password_spans(text, lowered):
        yield start, after + 2, end, "password"


def _matches(text: str) -> Iterator[tuple[str, int, int]]:
    """Each secret once: where two rules find the same text, the earlier rule names it."""
    lowered = text.lower()
    found = sorted(
        [
            *_provider_matches(text, lowered),
            *_assigned_matches(text, lowered),
            *_contextual_matches(text, lowered),
        ]
    )
    taken = 0
    for start, _priority, end, kind in found:
        if start >= taken:
            taken = end
            yield kind, start, end


def scan(text: str) -> list[Finding]:
    """Every secret in `text`, in order."""
    if not text:
        return []
    return [
        Finding(kind, text.count("\n", 0, start) + 1, start, end)
        for kind, start, end in _matches(text)
    ]


def redact(text: str, findings: list[Finding] | None = None) -> str:
    """`text` with each secret replaced by `[redacted:<kind>]` (a name before it is kept)."""
    found = scan(text) if findings is None else findings
    if not found:
        return text
    parts: list[str] = []
    at = 0
    for finding in found:
        parts.append(text[at : finding.start])
        parts.append(f"[redacted:{finding.kind}]")
        at = finding.end
    parts.append(text[at:])
    return "".join(parts)
