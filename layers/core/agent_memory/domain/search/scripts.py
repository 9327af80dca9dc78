"""Words of every script, as the words indexes hold them and queries look for them.

Latin, Cyrillic, Greek, Arabic, Hebrew, Devanagari and the like put spaces between words: a word
is a run of letters, digits and the marks written on them (Devanagari's vowel signs and virama,
Thai's vowels and tones), lower case, Latin, Greek and Cyrillic diacritics folded away
(`Zürich` -> zurich, `ё` -> е), Arabic's short vowels and Hebrew's points too (they are mostly
left unwritten, so a query without them must find a text with them).

Chinese, Japanese, Thai, Lao, Khmer and Myanmar put no space between words, and Korean joins its
particles to the word (`한국어야`: 한국어 + 야); no dictionary here says where a word ends. A run
of those characters is indexed as each character and each overlapping pair of them (Lucene's CJK
analyser makes the pairs; the single characters let a one-character query find its text), and a
query of two or more characters looks for its pairs, so `日本語` finds `これは日本語です` by 日本
and 本語. A character with its marks (Thai `กิ`) counts as one.

ASCII text is never touched here (`fold` lowers it, nothing else): English is split, stemmed and
ranked exactly as before this module existed.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

from ..kernel.patterns import Pattern

# Diacritics folded away: the combining marks Latin, Greek and Cyrillic letters decompose into,
# Hebrew points and cantillation, Arabic short vowels (harakat) and its tatweel, and the variation
# selectors that follow emoji. Other scripts' marks are part of their letters (a Devanagari
# virama, a Thai vowel, a kana's voicing mark) and stay.
_FOLDED_MARKS = Pattern(
    "[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f"
    "\u0591-\u05bd\u05bf\u05c1\u05c2\u05c4\u05c5\u05c7"
    "\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06dc\u06df-\u06e4\u06e7\u06e8\u06ea-\u06ed\u0640"
    "\ufe00-\ufe0f]"
)
# Blocks of the scripts indexed by character pairs (their letters, digits and marks only).
_PAIRED_BLOCKS = (
    (0x0E00, 0x0EFF),  # Thai, Lao
    (0x1000, 0x109F),  # Myanmar
    (0x1100, 0x11FF),  # Hangul Jamo
    (0x1780, 0x17FF),  # Khmer
    (0x3040, 0x30FF),  # Hiragana, Katakana
    (0x3130, 0x318F),  # Hangul compatibility Jamo
    (0x31F0, 0x31FF),  # Katakana phonetic extensions
    (0xFF66, 0xFF9F),  # half-width Katakana (NFKC makes them full width anyway)
)
# Wholly letters: Han (with its extensions and compatibility forms) and Hangul syllables.
_PAIRED_LETTERS = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\U00020000-\U0003134f"
_MARK_SCAN = (0x0300, 0x20000)  # where every combining mark of a living script is


def fold(text: str) -> str:
    """Lower case, compatibility forms unified (full-width `ＡＢＣ` -> abc), diacritics of
    Latin, Greek and Cyrillic (and Arabic and Hebrew vowel points) removed; every other mark
    kept, composed with its letter (`で` stays で, `한` stays 한)."""
    if text.isascii():
        return text.lower()  # nothing to fold: skips a Python step per character
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return unicodedata.normalize("NFC", _FOLDED_MARKS.sub("", decomposed))


@cache
def _marks() -> str:
    """A regex class body of every combining mark (Mn, Mc): built on first use, so a process
    that only ever sees ASCII never pays for it."""
    ranges: list[tuple[int, int]] = []
    for code in range(*_MARK_SCAN):
        if unicodedata.category(chr(code)) in ("Mn", "Mc"):
            if ranges and ranges[-1][1] == code - 1:
                ranges[-1] = (ranges[-1][0], code)
            else:
                ranges.append((code, code))
    return "".join(
        re.escape(chr(a)) if a == b else f"{re.escape(chr(a))}-{re.escape(chr(b))}"
        for a, b in ranges
    )


@cache
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """(a word of any script, one paired character with its marks)."""
    marks = _marks()
    paired = [
        chr(code)
        for first, last in _PAIRED_BLOCKS
        for code in range(first, last + 1)
        if unicodedata.category(chr(code))[0] in "LNM"
    ]
    letters = re.escape("".join(paired)) + _PAIRED_LETTERS
    word = re.compile(f"(?:[^\\W_]|[{marks}])+(?:'(?:[^\\W_]|[{marks}])+)?")
    cluster = re.compile(f"[{letters}][{marks}]*")
    return word, cluster


def pairs(run: str, *, query: bool) -> list[str]:
    """A run of paired characters as indexed (each character, then each overlapping pair) or
    as a query looks for it (its pairs; a lone character itself)."""
    clusters = _patterns()[1].findall(run)
    twos = [a + b for a, b in zip(clusters, clusters[1:], strict=False)]
    if query and twos:
        return twos
    return clusters + twos


def spaced(text: str, *, query: bool = False) -> str:
    """The folded text with every run of paired characters replaced by its pieces (`pairs`),
    spaces around them, so any tokenizer that splits at spaces and punctuation sees the same
    words as `words`. ASCII text: only lowered."""
    folded = fold(text)
    if folded.isascii():
        return folded
    return _runs().sub(lambda found: f" {' '.join(pairs(found.group(), query=query))} ", folded)


@cache
def _runs() -> re.Pattern[str]:
    """A run of paired characters, each with the marks that follow it."""
    cluster = _patterns()[1].pattern
    return re.compile(f"(?:{cluster})+")


def words(text: str, *, query: bool = False) -> list[str]:
    """Every word of the text in order, stopwords included: for the words of ASCII text, the
    regex the domain always split with (`what's` -> what's, `eu-west-1` -> eu, west, 1)."""
    spaced_text = spaced(text, query=query)
    if spaced_text.isascii():
        return _ASCII_WORD.findall(spaced_text)
    return _patterns()[0].findall(spaced_text)


# Letters and digits (not `_`), as SQLite's unicode61 tokenizer splits them; `what's` whole.
_ASCII_WORD = Pattern(r"[^\W_]+(?:'[^\W_]+)?")
