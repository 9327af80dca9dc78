"""Words of every script (domain/search/scripts.py): how each is split and folded, that a query
splits as its document does, and that ASCII and Latin text split exactly as before it existed."""

from __future__ import annotations

import re
import sqlite3
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_memory.adapters.sqlite.words import TOKENIZER, index_text
from agent_memory.domain.search.lexical import STOPWORDS, tokenize
from agent_memory.domain.search.scripts import fold, pairs, spaced, words

pytestmark = pytest.mark.unit

# The tokenizer as it was before scripts.py: folded by NFKD without any combining mark, then
# letters and digits of any script.
_BEFORE = re.compile(r"[^\W_]+(?:'[^\W_]+)?")


def fold_before(text: str) -> str:
    if text.isascii():
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def tokenize_before(text: str) -> list[str]:
    found = (token.split("'", 1)[0] for token in _BEFORE.findall(fold_before(text)))
    return [token for token in found if token and token not in STOPWORDS]


@given(st.text(alphabet=st.characters(max_codepoint=0x7F)))
def test_ascii_text_splits_and_is_stored_exactly_as_before(text: str) -> None:
    assert tokenize(text) == tokenize(text, query=True) == tokenize_before(text)
    assert spaced(text) == text.lower()
    assert index_text(text) == text  # FTS5 gets what it always got


# Latin letters with diacritics: Latin-1 Supplement, Extended-A and -B, Extended Additional.
LATIN = [chr(c) for r in ((0xC0, 0x250), (0x1E00, 0x1F00)) for c in range(*r)]


@given(st.lists(st.sampled_from([*LATIN, " ", "a", "e", "'", "-"]), max_size=30).map("".join))
def test_accented_latin_splits_as_before(text: str) -> None:
    assert tokenize(text) == tokenize_before(text)


@pytest.mark.parametrize(
    ("text", "folded"),
    [
        ("Zürich CAFÉ naïve", "zurich cafe naive"),
        ("Tiếng Việt", "tieng viet"),
        ("Ёлка, Йогурт", "елка, иогурт"),  # as before: Cyrillic breves and diaereses fold
        ("Ελληνικά", "ελληνικα"),
        ("مَرْحَبًا", "مرحبا"),  # Arabic short vowels: mostly unwritten, so folded away
        ("שָׁלוֹם", "שלום"),  # Hebrew points likewise
        ("हिन्दी", "हिन्दी"),  # a virama is part of the word
        ("です", "です"),  # a kana's voicing mark too (NFKD split it, NFC joins it again)
        ("한국어", "한국어"),  # Hangul syllables are composed again, not left as jamo
        ("ＡＢＣ１２３", "abc123"),  # full-width forms
        ("ok ❤️", "ok ❤"),  # the emoji's variation selector is no word of its own
    ],
)
def test_fold(text: str, folded: str) -> None:
    assert fold(text) == folded


@pytest.mark.parametrize(
    ("run", "indexed", "asked"),
    [
        ("日本語", ["日", "本", "語", "日本", "本語"], ["日本", "本語"]),
        ("猫", ["猫"], ["猫"]),  # a lone character is looked for itself
        ("ไทย", ["ไ", "ท", "ย", "ไท", "ทย"], ["ไท", "ทย"]),
        ("กินข้าว", ["กิ", "น", "ข้", "า", "ว", "กิน", "นข้", "ข้า", "าว"], ["กิน", "นข้", "ข้า", "าว"]),
    ],
)
def test_a_run_is_its_characters_with_their_marks_and_their_pairs(
    run: str, indexed: list[str], asked: list[str]
) -> None:
    assert pairs(run, query=False) == indexed
    assert pairs(run, query=True) == asked


def test_scripts_with_spaces_keep_their_words_whole_and_runs_are_cut_from_their_neighbours() -> (
    None
):
    assert words("हिन्दी भाषा") == ["हिन्दी", "भाषा"]
    assert words("iPhone用のアプリ", query=True) == ["iphone", "用の", "のア", "アプ", "プリ"]
    assert words("이건 한국어야", query=True) == ["이건", "한국", "국어", "어야"]


@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"])))
def test_a_query_of_a_texts_words_finds_them_in_it(text: str) -> None:
    # Whatever the script, every word a query of the text asks for is a word of the text.
    assert set(tokenize(text, query=True)) <= set(tokenize(text))


@pytest.mark.parametrize(
    "text", ["これは日本語です", "이건 한국어야", "हिन्दी में लिखा गया", "ภาษาไทยง่ายมาก", "Ёлка, мама"]
)
def test_fts5_splits_what_is_stored_into_the_domains_words(text: str) -> None:
    # The words table's tokenizer sees the stored text as the domain's words, marks and all
    # (porter stems English only).
    conn = sqlite3.connect(":memory:")
    conn.execute(f"CREATE VIRTUAL TABLE w USING fts5(text, tokenize = '{TOKENIZER}')")
    conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(w, instance)")
    conn.execute("INSERT INTO w VALUES (?)", (index_text(text),))
    stored = [row[0] for row in conn.execute("SELECT term FROM v ORDER BY offset")]

    assert stored == tokenize(text)
