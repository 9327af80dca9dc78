"""Secrets known by the words before them rather than by their own shape: national ids after
the name of one (`SSN`, `National Insurance number`, `passport no.`), and passwords written
in prose (`my password is ...`, `pw: ...`, `passphrase ...`).

Each place a key word appears costs one bounded match, and only the first MAX_PLACES places
of a text are looked at, so a text made of key words is still read in linear time."""

from __future__ import annotations

from collections.abc import Iterator

from ..kernel.patterns import Pattern
from .checks import is_placeholder

MAX_PLACES = 5_000

# The names of national ids. Short acronyms count only in capitals (`SIN`, not `sin`).
_ID_NAME = Pattern(
    r"(?i:(?:social[ \t-]+(?:security|insurance)|national[ \t-]+(?:insurance|id(?:entity)?)"
    r"|passport|tax[ \t-]+(?:id|file)|aadhaa?r|personnummer|ssns?)\b)"
    r"|(?:SIN|TIN|TFN|BSN|DNI|NIE|NIF|NINO|NI)\b"
)
# Where such a name may start: found with str.find (in the lowered text, and in the text for
# the acronyms), far faster than a pattern of alternatives tried at every character.
_ID_STARTS = ("social", "national", "passport", "tax", "aadhar", "aadhaar", "personnummer", "ssn")
_ID_ACRONYM_STARTS = ("SIN", "TIN", "TFN", "BSN", "DNI", "NIE", "NIF", "NI")
# Between the name and the id: `number`, `no.`, `#`, `is`, `:` ... at most a few of them.
_ID_VALUE = Pattern(
    r"(?:'s)?(?:[ \t]*+(?:(?i:numbers?|num|nos?|nr|ids?|card|is|was|of|my|his|her|their)\b\.?"
    r"|[:#=-]))*+[ \t]*+(?P<value>[A-Z0-9](?:[A-Z0-9]|[ -](?=[A-Z0-9])){5,24}+)(?![A-Za-z0-9])"
)
_DATE = Pattern(r"[0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{2}-[0-9]{2}-[0-9]{4}")
MIN_ID_DIGITS = 6


def _places(text: str, words: tuple[str, ...]) -> set[int]:
    """Where each word starts a word of `text` (its first MAX_PLACES such places each)."""
    places: set[int] = set()
    for word in words:
        at, seen = text.find(word), 0
        while at >= 0 and seen < MAX_PLACES:
            if at == 0 or not text[at - 1].isalnum():
                places.add(at)
                seen += 1
            at = text.find(word, at + len(word))
    return places


def national_id_spans(text: str, lowered: str) -> Iterator[tuple[int, int]]:
    places = _places(lowered, _ID_STARTS) | _places(text, _ID_ACRONYM_STARTS)
    for at in sorted(places)[:MAX_PLACES]:
        name = _ID_NAME.match(text, at)
        if name is None:
            continue
        found = _ID_VALUE.match(text, name.end())
        if found is None:
            continue
        value = found.group("value")
        if sum(ch.isdigit() for ch in value) < MIN_ID_DIGITS or _DATE.fullmatch(value):
            continue
        yield found.span("value")


_PASSWORD_WORD = Pattern(
    r"(?:pass(?P<long>word|wd|phrase|code)?|pwd?|(?P<pin>pin(?:[ \t]+(?:code|number))?))"
    r"(?:s|'s)?[\"']?(?![a-z0-9])"
)
# A connector: `is`, `was`, `set to`, `:`, `=`, `->`, `-` between spaces.
_CONNECTOR = (
    r"(?:[ \t]*+(?:(?i:is|was|are|now|be|to|set[ \t]+to|changed[ \t]+to|reset[ \t]+to)\b"
    r"|:=|[:=]|->|\u2014|-(?=[ \t])))"
)
_AFTER_PASSWORD = Pattern(
    # `password for the guest network is X`: what it is for, then a connector.
    r"(?:[ \t]+(?i:for|of|on|to|at|in)(?:[ \t]++[^\s:=\"'`]{1,40}+){1,3}?"
    rf"(?P<for>{_CONNECTOR}++)|(?P<conn>{_CONNECTOR}*+))"
    r"(?P<space>[ \t]*+)(?:\"(?P<dq>[^\"\n]{1,128}+)\"|'(?P<sq>[^'\n]{1,128}+)'"
    r"|(?P<bare>[^\s\"'`]{1,128}+))"
)
# Words a password's value is often followed by in prose that are no password themselves.
_NOT_PASSWORDS = frozenset(
    "sha1 sha256 sha512 md5 bcrypt scrypt argon2 argon2id argon2i pbkdf2 utf8 utf-8 base64".split()
)
_TRAILING = ".,;:?)]}"
# What follows `password is` in a sentence about a password rather than one: its state, in
# words that mostly end like these or are among the few that do not.
_PREDICATE_ENDINGS = ("ed", "ing", "ly", "ble", "ive", "ous", "ful", "less", "ent", "ant", "al")
_PREDICATES = frozenset(
    "incorrect correct wrong invalid secure insecure strong mandatory temporary private "
    "public secret hidden forgotten stolen written known unknown unique simple complex "
    "visible enough weaker stronger longer shorter same sensitive default whatever something "
    "nothing anything everything somewhere elsewhere".split()
)
MIN_VALUE_CHARS = 6
MIN_UNINTRODUCED_CHARS = 8
MIN_DISTINCT_LETTERS = 4


def _passphrase(value: str) -> bool:
    """Diceware: three or more lower-case words joined by dashes."""
    parts = value.split("-")
    return len(parts) >= 3 and all(p.isalpha() and p.islower() for p in parts)


def _looks_like_password(value: str, introduced: bool) -> bool:
    """A value after a password's name: a password, or a word of the sentence?"""
    if len(value) < (MIN_VALUE_CHARS if introduced else MIN_UNINTRODUCED_CHARS):
        return False
    lowered = value.lower()
    if is_placeholder(value) or lowered in _NOT_PASSWORDS or "://" in value:
        return False
    if value[0] in "/~" or not any(ch.isalnum() for ch in value):
        return False
    has_alpha = any(ch.isalpha() for ch in value)
    has_digit = any(ch.isdigit() for ch in value)
    symbols = {ch for ch in value if not ch.isalnum()}
    if not has_alpha:
        return introduced and value.isdigit()
    if has_digit or (symbols - {"-", "_", "."}):
        return True
    if symbols:
        return _passphrase(value)
    if not introduced or value.isupper():
        return False
    if any(ch.isupper() for ch in value[1:]):
        return True  # mixed case past the first letter: `tRoubador`
    # A lower-case word said to be the password (`my password is sunshine`) rather than
    # what it is like (`... is incorrect`, `... is required`).
    if len(set(lowered)) < MIN_DISTINCT_LETTERS:
        return False  # `aaaaaaaa`: a filler
    return not (lowered in _PREDICATES or lowered.endswith(_PREDICATE_ENDINGS))


def password_spans(text: str, lowered: str) -> Iterator[tuple[int, int]]:
    for at in sorted(_places(lowered, ("pass", "pw", "pin")))[:MAX_PLACES]:
        key = _PASSWORD_WORD.match(lowered, at)
        if key is None:
            continue
        after = _AFTER_PASSWORD.match(text, key.end())
        if after is None:
            continue
        connector = (after.group("for") or after.group("conn") or "").strip()
        if key.group("pin"):
            # A PIN: four to eight digits said to be one (`PIN is 4921`, `pin code: 0417`).
            value = after.group("bare") or ""
            if (
                connector
                and value.rstrip(_TRAILING).isdigit()
                and 4 <= len(value.rstrip(_TRAILING)) <= 8
            ):
                yield after.start("bare"), after.start("bare") + len(value.rstrip(_TRAILING))
            continue
        if (
            key.group("long") is None
            and key.group().startswith("pass")
            and connector not in (":", "=")
        ):
            continue  # `pass` alone is a password only as `pass: X` or `pass=X`
        if not connector and not after.group("space"):
            continue  # `password-protected`, `password_hash`
        quoted = "dq" if after.group("dq") else "sq" if after.group("sq") else None
        if quoted and connector.isalpha():
            # `my password is "sunshine"`: quoted after words, any value but a placeholder.
            value = after.group(quoted)
            if len(value.strip()) >= MIN_VALUE_CHARS and not is_placeholder(value.strip()):
                yield after.span(quoted)
            continue
        group = quoted or "bare"
        start, end = after.span(group)
        while end > start and text[end - 1] in _TRAILING:
            end -= 1
        if _looks_like_password(text[start:end], introduced=bool(connector)):
            yield start, end
