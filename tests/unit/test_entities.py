"""Entity keys: the names an item mentions, read by rules over capitals, possessives and the
speaker an event carries (domain/search/entities.py)."""

import pytest

from agent_memory.domain.search.entities import MAX_ENTITIES, entities, entity_key

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Names mid-sentence, a question's first word skipped.
        ("What do Caroline and Melanie both enjoy?", ("caroline", "melanie")),
        # A possessive folds into its owner; a run of capitals is one name.
        ("Yesterday I went to Caroline's party in New York.", ("caroline", "new york")),
        ("Caroline\u2019s dog Oscar and James' cat", ("caroline", "oscar", "james")),
        # An acronym is a name even where it starts the sentence.
        ("LGBTQ groups meet on Fridays. NASA too.", ("lgbtq", "nasa")),
        # A name that starts a sentence is still a name; a common word there is not.
        ("Sweden is where I moved from. Thanks! Maybe later.", ("sweden",)),
        # A title is not part of the name, and its dot ends no sentence.
        ("I met Dr. Smith and Mrs. Jones there.", ("smith", "jones")),
        # Punctuation between two capitalised words parts them.
        ("Caroline, Melanie and John went.", ("caroline", "melanie", "john")),
        # Markdown: a heading and a list item start anew.
        ("# Project Atlas\n- Priya owns it", ("project atlas", "priya")),
        # Nothing capitalised: no entities, and hosts or regions are not names.
        ("we deployed api.example.com to eu-west-1", ()),
    ],
)
def test_names_in_text(text: str, expected: tuple[str, ...]) -> None:
    assert entities(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "I think I'm ready, I've said so and I'd do it again",  # `I` and its contractions
        "On Monday in May we met; Friday in March too",  # dates are when.py's, not names
        "Yes. Hey! Oh well. Congrats, Today was great.",  # sentence starts of conversation
        "The plan. This works. It is fine.",  # stopwords starting sentences
        "User prefers dark mode. Releases ship weekly.",  # a note's usual first words
        "Deployed it. Testing now. Finally done.",  # verbs and adverbs first in a sentence
        "",
    ],
)
def test_look_alikes_are_not_entities(text: str) -> None:
    assert entities(text) == ()


def test_a_speaker_is_an_entity_of_what_they_said_listed_first() -> None:
    # Given a message whose text never names who said it
    # When its entities are read with the speaker the event carries
    found = entities("I went to a support group with Melanie", speakers=["Caroline"])

    # Then the speaker is a key too, first, and not repeated when also named
    assert found == ("caroline", "melanie")
    assert entities("Caroline here", speakers=["Caroline "]) == ("caroline",)


def test_keys_are_folded_and_bounded() -> None:
    assert entity_key("  New   York's ") == "new york"
    many = " and ".join(f"Person{n}" for n in range(MAX_ENTITIES + 10))
    found = entities(f"We met {many}.")
    assert len(found) == MAX_ENTITIES
    assert found[0] == "person0"
    # A run of capitals longer than a name (a shouted heading) is no key.
    assert entities("see " + " ".join(["Word" * 20] * 2)) == ()


def test_the_linked_index_passes_every_call_of_an_index_on_to_the_one_it_wraps() -> None:
    # The cloud's index is a LinkedIndex around OpenSearch or S3 Vectors: a call it did not pass
    # on would answer the base class's default (no stored documents, no vectors) instead of the
    # backend's, as the reindex's sweep and an export's vectors once did
    from agent_memory.domain.search.index import SearchIndex
    from agent_memory.domain.search.links import LinkedIndex

    calls = {n for n, f in vars(SearchIndex).items() if callable(f) and not n.startswith("_")}
    assert calls and {name for name in calls if name not in vars(LinkedIndex)} == set()
