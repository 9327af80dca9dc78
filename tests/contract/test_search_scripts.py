"""Every script is found by its words in every SearchIndex adapter, before any vector exists.

The documents are written with no vector (as a commit writes them: the background embedder adds
vectors later), so what finds them here is the words index alone. Each sentence is found by its
whole text, by one of its words and by a phrase from inside it; in Chinese, Japanese, Korean and
Thai a word is a part of a run with no space around it (domain/search/scripts.py).
"""

from __future__ import annotations

import pytest

from agent_memory.domain.search.index import IndexFilter, SearchIndex
from index_docs import doc

pytestmark = pytest.mark.contract

AGENT = "teams/web"

# script -> (sentence, a word of it, a phrase from inside it)
SENTENCES: dict[str, tuple[str, str, str]] = {
    "latin": ("Le café de Zürich ouvre à huit heures", "Zurich", "café de zürich"),
    "vietnamese": ("Tôi thích uống cà phê sữa đá", "phê", "uống cà phê"),
    "cyrillic": ("Сегодня мы выпускаем новую версию", "версию", "выпускаем новую"),
    "greek": ("Η συνάντηση μεταφέρθηκε στην Τρίτη", "συνάντηση", "στην τρίτη"),
    "arabic": ("نُطلق الإصدار الجديد يوم الجمعة", "الجديد", "الإصدار الجديد"),
    "hebrew": ("הפגישה נדחתה ליום שלישי בבוקר", "שלישי", "ליום שלישי"),
    "devanagari": ("हिन्दी में लिखा गया संदेश यहाँ है", "हिन्दी", "लिखा गया संदेश"),
    "thai": ("ภาษาไทยเขียนโดยไม่เว้นวรรค", "ภาษาไทย", "ไม่เว้นวรรค"),
    "chinese": ("我们周五发布新版本", "发布", "新版本"),
    "japanese": ("これは日本語です", "日本語", "日本語です"),
    "korean": ("이건 한국어야", "한국어", "한국어야"),
    "georgian": ("ქართული ენა ძალიან ლამაზია", "ენა", "ქართული ენა"),
    "armenian": ("Հայերեն լեզուն շատ գեղեցիկ է", "լեզուն", "շատ գեղեցիկ"),
}


@pytest.fixture
def every_script(search_index: SearchIndex) -> SearchIndex:
    """Given one document a script, and one history event a script, none with a vector."""
    search_index.upsert(
        [doc(f"r-{name}", sentence) for name, (sentence, _, _) in SENTENCES.items()]
        + [
            doc(f"e-{name}", sentence, kind="event", session_id="ses_1", scope="session")
            for name, (sentence, _, _) in SENTENCES.items()
        ]
    )
    return search_index


def first(index: SearchIndex, query: str, kind: str = "record") -> str | None:
    where = IndexFilter(kind=kind, session_id="ses_1")  # type: ignore[arg-type]
    hits = index.lexical("t1", AGENT, query, where, 5)
    return hits[0].id if hits else None


@pytest.mark.parametrize("script", list(SENTENCES))
def test_a_sentence_is_found_by_its_whole_text(every_script: SearchIndex, script: str) -> None:
    sentence, _, _ = SENTENCES[script]

    assert first(every_script, sentence) == f"r-{script}"
    assert first(every_script, sentence, "event") == f"e-{script}"


@pytest.mark.parametrize("script", list(SENTENCES))
def test_a_sentence_is_found_first_by_one_of_its_words(
    every_script: SearchIndex, script: str
) -> None:
    _, word, _ = SENTENCES[script]

    assert first(every_script, word) == f"r-{script}"
    assert first(every_script, word, "event") == f"e-{script}"


@pytest.mark.parametrize("script", list(SENTENCES))
def test_a_sentence_is_found_first_by_a_phrase_from_inside_it(
    every_script: SearchIndex, script: str
) -> None:
    _, _, phrase = SENTENCES[script]

    assert first(every_script, phrase) == f"r-{script}"
    assert first(every_script, phrase, "event") == f"e-{script}"


def test_a_word_of_one_script_finds_nothing_in_another(every_script: SearchIndex) -> None:
    # Pairs of characters are words like any other: a Japanese word shares no pair with the
    # Chinese sentence, though both are written in Han.
    hits = every_script.lexical("t1", AGENT, "日本語", IndexFilter(), 20)

    assert [hit.id for hit in hits] == ["r-japanese"]
