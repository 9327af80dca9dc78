"""The secret formats the guard knows.

Provider formats are matched on their fixed prefixes and lengths. Anything else counts only as
the value of a key-like name (`password=`, `secret:`, `token = ...`) and only when it looks
random (see detector.looks_random), so ids and digests in ordinary text pass.

Each pattern starts with a literal where it can: Python's `re` then skips ahead to the literal
instead of trying the pattern at every character, which is what keeps a scan of a 4 KB write
well under a millisecond. A word boundary before a token (`\\b`) would defeat that, so it is
checked after a match instead (`Rule.boundary`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    """A format. `pattern`'s group `value`, when it has one, is the secret (what redaction
    replaces); otherwise the whole match is. Earlier rules win where two find the same text."""

    kind: str
    pattern: re.Pattern[str]
    boundary: bool = True
    # Literals (lower case) one of which the lowered text must hold for the rule to be tried:
    # for patterns that cannot start with a literal, which `re` tries at every character.
    hints: tuple[str, ...] = ()


def _rule(
    kind: str, pattern: str, *, boundary: bool = True, flags: int = 0, hints: tuple[str, ...] = ()
) -> Rule:
    return Rule(kind, re.compile(pattern, flags), boundary, hints)


RULES: tuple[Rule, ...] = (
    _rule(
        "gcp_service_account_key",
        r'"private_key"\s*:\s*"(?P<value>-----BEGIN[A-Z ]*PRIVATE KEY-----[^"]*)"?',
        boundary=False,
    ),
    _rule(
        "private_key",
        r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
        r"(?:.*?-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|.*\Z)",
        boundary=False,
        flags=re.DOTALL,
    ),
    _rule("aws_access_key_id", r"(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}(?![A-Za-z0-9])"),
    _rule("azure_storage_key", r"AccountKey=(?P<value>[A-Za-z0-9+/]{86}==)", boundary=False),
    # Entra ID (Azure AD) client secrets: three characters, a digit, `Q~`, then 31-34 more.
    _rule(
        "azure_client_secret",
        r"(?<![A-Za-z0-9_~.-])(?P<value>[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34})"
        r"(?![A-Za-z0-9_~.-])",
        boundary=False,
        hints=("q~",),
    ),
    # The look-behind right after `eyJ` drops a start inside a longer run at once (`eyJeyJ...`
    # would otherwise be read to its end from every `eyJ` in it: quadratic).
    _rule(
        "jwt",
        r"eyJ(?<![A-Za-z0-9_-]eyJ)[A-Za-z0-9_-]{8,}+\.eyJ[A-Za-z0-9_-]{8,}+\.[A-Za-z0-9_-]{8,}+",
    ),
    _rule(
        "github_token",
        r"(?:gh[pousr]_[A-Za-z0-9]{36,255}+|github_pat_[A-Za-z0-9_]{40,255}+)(?![A-Za-z0-9_])",
    ),
    _rule("gitlab_token", r"glpat-[A-Za-z0-9_-]{20,}+"),
    _rule("slack_token", r"xox[abposre]-[A-Za-z0-9-]{10,}+"),
    _rule(
        "slack_webhook",
        r"https://hooks\.slack\.com/services/T[A-Z0-9]{6,}/B[A-Z0-9]{6,}/[A-Za-z0-9]{16,}",
    ),
    _rule(
        "stripe_key",
        r"[sr]k_(?:live|test)_[A-Za-z0-9]{20,}+",
        hints=("k_live_", "k_test_"),
    ),
    _rule("anthropic_key", r"sk-ant-[A-Za-z0-9_-]{32,}+"),
    _rule("openai_key", r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{32,}+"),
    _rule("google_api_key", r"AIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])"),
    _rule(
        "password_in_url",
        r"://[^\s:/@]{1,64}+:(?P<value>[^\s:/@]{3,128}+)@[A-Za-z0-9.-]",
        boundary=False,
    ),
    _rule(
        "bearer_token",
        r"[Bb](?:earer|EARER)[ \t]+(?P<value>[A-Za-z0-9._~+/-]{20,}+=*)",
        hints=("bearer",),
    ),
)

# `name: value`, `name = "value"`, `"name": "value"`, `NAME=value`: the value is a secret when
# the name before it is key-like (KEY_LIKE_NAME) and the value looks random.
ASSIGNMENT = re.compile(
    r"[:=][>=]?[ \t]*[\"'`]?(?P<value>[^\s\"'`,;)}\]]{8,256}+)",
)
# Where to look for such names at all, in the lowered text (found with str.find, much faster
# than a pattern of alternatives, which `re` tries at every character).
KEY_WORDS = ("pass", "pwd", "secret", "token", "key", "credential")
# From the end of that word to the sign: the rest of the name, a closing quote, spaces.
TO_SIGN = re.compile(r"[a-z0-9_.-]{0,64}+[\"']?[ \t]*(?=[:=])")
KEY_LIKE_NAME = re.compile(
    r"(?i)(?:password|passwd|passphrase|pwd|secret|token|api[_.-]?key|apikey|access[_.-]?key"
    r"|private[_.-]?key|credentials?|auth[_.-]?key)"
)
