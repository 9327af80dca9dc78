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
from collections.abc import Callable
from dataclasses import dataclass

from ..kernel.patterns import Pattern
from .checks import basic_credentials, is_placeholder, nino_prefix_valid, ssn_valid

Check = Callable[["re.Match[str]"], bool]


@dataclass(frozen=True)
class Rule:
    """A format. `pattern`'s group `value`, when it has one, is the secret (what redaction
    replaces); otherwise the whole match is. Earlier rules win where two find the same text."""

    kind: str
    pattern: Pattern
    boundary: bool = True
    # Literals (lower case) one of which the lowered text must hold for the rule to be tried:
    # for patterns that cannot start with a literal, which `re` tries at every character.
    hints: tuple[str, ...] = ()
    # What a match must also be (a checksum, a valid range, a decoding): None, anything.
    check: Check | None = None


def _rule(
    kind: str,
    pattern: str,
    *,
    boundary: bool = True,
    flags: int = 0,
    hints: tuple[str, ...] = (),
    check: Check | None = None,
) -> Rule:
    return Rule(kind, Pattern(pattern, flags), boundary, hints, check)


def _not_placeholder(match: re.Match[str]) -> bool:
    return not is_placeholder(match.group("value"))


def _basic(match: re.Match[str]) -> bool:
    return basic_credentials(match.group("value"))


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
    # Bot, user and config tokens (`xox?-`) and app-level tokens (`xapp-`).
    _rule("slack_token", r"(?:xox[abposre]|xapp)-[A-Za-z0-9-]{10,}+", hints=("xox", "xapp-")),
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
    _rule("npm_token", r"npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])"),
    _rule("pypi_token", r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}+"),
    _rule("sendgrid_key", r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])"),
    _rule("huggingface_token", r"hf_[A-Za-z0-9]{34}(?![A-Za-z0-9])"),
    # The user may be empty: `redis://:password@host` is how Redis and AMQP URLs carry one.
    _rule(
        "password_in_url",
        r"://[^\s:/@]{0,64}+:(?P<value>[^\s:/@]{3,128}+)@[A-Za-z0-9.-]",
        boundary=False,
        check=_not_placeholder,
    ),
    # ~/.netrc: `machine HOST login USER password SECRET` (or `default ...`), on one line or
    # several. Possessive throughout: a host or a name is read once.
    _rule(
        "netrc_password",
        r"(?:machine\s++\S{1,253}+|default)(?:\s++(?:login|account|port)\s++\S{1,256}+){0,3}+"
        r"\s++password\s++(?P<value>\S{1,256}+)",
        hints=("machine", "default"),
        check=_not_placeholder,
    ),
    # Docker's config.json keeps `"auth": base64("user:password")` per registry.
    _rule(
        "docker_auth",
        r'"auth"[ \t]*:[ \t]*"(?P<value>[A-Za-z0-9+/]{8,4096}+={0,2})"',
        boundary=False,
        check=_basic,
    ),
    _rule(
        "basic_auth",
        r"[Bb](?:asic|ASIC)[ \t]+(?P<value>[A-Za-z0-9+/]{8,4096}+={0,2})(?![A-Za-z0-9+/=])",
        hints=("basic",),
        check=_basic,
    ),
    # A US social security number in its dashed form, within the ranges ever issued.
    _rule(
        "national_id",
        r"(?P<value>(?P<area>[0-8](?<![0-9A-Za-z_-][0-8])[0-9]{2})-(?P<group>[0-9]{2})-"
        r"(?P<serial>[0-9]{4}))(?![0-9A-Za-z_]|-[0-9])",
        boundary=False,
        check=lambda m: ssn_valid(m.group("area"), m.group("group"), m.group("serial")),
    ),
    # A UK National Insurance number as printed (`QQ 12 34 56 C`); written solid it counts
    # only beside words that name it (see context.py).
    _rule(
        "national_id",
        r"(?P<value>(?P<letters>[A-CEGHJ-PR-TW-Z](?<![A-Za-z0-9][A-Z])[A-CEGHJ-NPR-TW-Z]) [0-9]{2} "
        r"[0-9]{2} [0-9]{2} [A-D])(?![A-Za-z0-9])",
        boundary=False,
        check=lambda m: nino_prefix_valid(m.group("letters")),
    ),
    _rule(
        "bearer_token",
        r"[Bb](?:earer|EARER)[ \t]+(?P<value>[A-Za-z0-9._~+/-]{20,}+=*)",
        hints=("bearer",),
    ),
)

# `name: value`, `name = "value"`, `"name": "value"`, `NAME=value`: the value is a secret when
# the name before it is key-like (KEY_LIKE_NAME) and the value looks random.
ASSIGNMENT = Pattern(
    r"[:=][>=]?[ \t]*[\"'`]?(?P<value>[^\s\"'`,;)}\]]{8,256}+)",
)
# Where to look for such names at all, in the lowered text (found with str.find, much faster
# than a pattern of alternatives, which `re` tries at every character).
KEY_WORDS = ("pass", "pwd", "secret", "token", "key", "credential")
# From the end of that word to the sign: the rest of the name, a closing quote, spaces.
TO_SIGN = Pattern(r"[a-z0-9_.-]{0,64}+[\"']?[ \t]*(?=[:=])")
KEY_LIKE_NAME = Pattern(
    r"(?i)(?:password|passwd|passphrase|pwd|secret|token|api[_.-]?key|apikey|access[_.-]?key"
    r"|private[_.-]?key|credentials?|auth[_.-]?key)"
)
