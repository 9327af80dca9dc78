"""Payment card numbers (PANs), found without context: 13-19 digits, solid or in the groups
cards are printed in, that start as a card network's numbers do and pass the Luhn check. An
order number or a tracking id of the same length fails one of the three nine times in ten."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..kernel.patterns import Pattern
from .checks import card_grouping_fits, card_network_fits, luhn_valid

# A run of at least 13 digits, single spaces or dashes between them, not inside a word, a
# version or a longer id. Spaces and dashes can never be digits, so the run is read once.
# (The look-behind comes after the first digit so that `re` can skip to digits at once.)
_RUN = Pattern(r"[0-9](?<![0-9A-Za-z_.+/-][0-9])(?:[ -]?[0-9]){12}(?:[ -]?[0-9])*+")
_GROUP = Pattern(r"[0-9]+")
# A run longer than this is a table of numbers, not cards; only its start is looked at.
MAX_RUN_CHARS = 160
MAX_GROUPS_A_CARD = 5


def _tainted_end(text: str, end: int) -> bool:
    """Whether the run goes on as something else: `...1111abc`, `...1111.25`."""
    if end >= len(text):
        return False
    after = text[end]
    if after.isalnum() or after == "_":
        return True
    return after in ".," and end + 1 < len(text) and text[end + 1].isdigit()


def _card(groups: list[re.Match[str]]) -> bool:
    digits = "".join(g.group() for g in groups)
    return (
        13 <= len(digits) <= 19
        and card_grouping_fits([len(g.group()) for g in groups])
        and card_network_fits(digits)
        and luhn_valid(digits)
    )


def card_spans(text: str) -> Iterator[tuple[int, int]]:
    """Where each card number is: from the start of a run, the longest run of its groups that
    is a card; after one, the next may follow in the same run (`4111 ... 5500 ...`)."""
    for run in _RUN.finditer(text):
        at = run.start()
        chunk = text[at : at + MAX_RUN_CHARS]
        if len(set(chunk[: run.end() - at]) & {" ", "-"}) > 1:
            continue  # spaces and dashes mixed: a list or a range, not a printed card
        groups = list(_GROUP.finditer(chunk[: run.end() - at]))
        last_end = run.end() - at
        i = 0
        while i < len(groups):
            found = None
            for j in range(min(len(groups), i + MAX_GROUPS_A_CARD), i, -1):
                end = groups[j - 1].end()
                if end == last_end and _tainted_end(text, run.end()):
                    continue
                if _card(groups[i:j]):
                    found = j
                    break
            if found is None:
                break
            yield at + groups[i].start(), at + groups[found - 1].end()
            i = found
