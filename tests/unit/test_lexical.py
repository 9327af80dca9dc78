"""Tokenising and BM25 ranking shared by the search paths."""

import pytest

from agent_memory.domain.search.lexical import bm25, stem, tokenize

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("api.example.com", ["api", "example", "com"]),
        ("What's the region? eu-west-1", ["region", "eu", "west", "1"]),
        ('"quoted" AND (NEAR) OR *', ["quoted", "near"]),
        ("", []),
        ("the and of", []),
        ("Das Büro liegt in Zürich", ["das", "buro", "liegt", "zurich"]),
        ("naïve CAFÉ, Ørsted", ["naive", "cafe", "ørsted"]),
        # Scripts without spaces: each character and each pair (domain/search/scripts.py).
        ("東京 オフィス", ["東", "京", "東京", "オ", "フ", "ィ", "ス", "オフ", "フィ", "ィス"]),
        ("snake_case", ["snake", "case"]),
    ],
)
def test_tokenize_drops_syntax_and_stopwords(text, tokens):
    assert tokenize(text) == tokens


def test_bm25_ranks_shared_words_and_newer_wins_ties():
    docs = ["release on tuesday", "release on tuesday", "lunch menu", "release notes template"]
    ranked = [s.index for s in bm25("when is the release on tuesday", docs)]
    assert ranked[:2] == [1, 0]  # identical texts: the later (newer) one first
    assert 2 not in ranked


def test_bm25_without_query_terms_finds_nothing():
    assert bm25("the of and", ["anything"]) == []


@pytest.mark.parametrize(
    ("words", "stem_"),
    [
        (["deployed", "deploying", "deploys", "deploy"], "deploy"),
        (["services", "service"], "servic"),
        (["stopped", "stopping", "stop"], "stop"),
        (["parties", "party"], "party"),
        (["boxes", "box"], "box"),
    ],
)
def test_inflected_words_share_a_stem(words, stem_):
    assert {stem(w) for w in words} == {stem_}


@pytest.mark.parametrize(
    "word", ["bus", "class", "this", "analysis", "run", "eu", "2023", "zürich"]
)
def test_short_words_numbers_and_latin_endings_keep_their_form(word):
    assert stem(word) == word
