"""What a candidate must also be to count, past its pattern: not a placeholder, a card number's
network and checksum, a national id's valid ranges, base64 that decodes to `user:password`."""

from __future__ import annotations

import base64
import binascii
import re

from ..kernel.patterns import Pattern

# Values that stand for a secret without being one: references, templates, placeholders.
_PLACEHOLDER_START = Pattern(r"[$%<\[]|\{\{|\*{3}|x{6}|\.{3}")
_PLACEHOLDER_WORDS = (
    "example",
    "placeholder",
    "your_",
    "your-",
    "changeme",
    "redacted",
    "dummy",
    "sample",
    "fake",
    "none",
    "null",
    "undefined",
    "true",
    "false",
    "process.env",
    "os.environ",
    "getenv",
    "settings.",
    "config.",
    "env[",
)
_PLACEHOLDER_WORD = Pattern("|".join(re.escape(w) for w in _PLACEHOLDER_WORDS))


def is_placeholder(value: str) -> bool:
    """A reference, template or stand-in (`${DB_PASSWORD}`, `<your-key>`, `changeme`)."""
    return bool(_PLACEHOLDER_START.match(value) or _PLACEHOLDER_WORD.search(value.lower()))


def luhn_valid(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def card_network_fits(digits: str) -> bool:
    """Whether the number starts as a card network's do and is as long as theirs are: an order
    number or a timestamp of the same length mostly starts otherwise."""
    n = len(digits)
    two, four = int(digits[:2]), int(digits[:4])
    if digits[0] == "4":
        return n in (13, 16, 19)
    if 51 <= two <= 55 or 2221 <= four <= 2720:
        return n == 16
    if two in (34, 37):
        return n == 15
    if two in (36, 38, 39) or 300 <= int(digits[:3]) <= 305:
        return 14 <= n <= 19
    if 3528 <= four <= 3589 or digits[0] == "6":
        return 16 <= n <= 19
    if two in (50, 56, 57, 58):
        return 13 <= n <= 19
    return False


def card_grouping_fits(lengths: list[int]) -> bool:
    """How cards are printed: one run, fours (the last group shorter), or Amex's and Diners'
    4-6-5 and 4-6-4."""
    if len(lengths) == 1:
        return True
    if lengths in ([4, 6, 5], [4, 6, 4]):
        return True
    return all(n == 4 for n in lengths[:-1]) and 1 <= lengths[-1] <= 4


def ssn_valid(area: str, group: str, serial: str) -> bool:
    """A US social security number as issued: no area 000, 666 or 900-999, no group 00, no
    serial 0000."""
    return area not in ("000", "666") and area[0] != "9" and group != "00" and serial != "0000"


_NINO_NEVER = frozenset({"BG", "GB", "NK", "KN", "TN", "NT", "ZZ"})


def nino_prefix_valid(letters: str) -> bool:
    """A UK National Insurance number's two letters as HMRC allocates them."""
    return letters.upper() not in _NINO_NEVER


def basic_credentials(value: str) -> bool:
    """Whether base64 decodes to `user:password` (an HTTP Basic or a Docker `auth` value)."""
    try:
        raw = base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
        decoded = raw.decode("utf-8")
    except (binascii.Error, ValueError):
        return False
    user, sep, password = decoded.partition(":")
    return bool(sep and user and password and decoded.isprintable() and " " not in user)
