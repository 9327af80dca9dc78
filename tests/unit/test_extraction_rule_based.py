"""RuleBasedModel: deterministic extraction, and similarity-based skip and replace."""

import pytest

from agent_memory.adapters.models.rule_based import RuleBasedModel, jaccard, third_person
from agent_memory.domain.extraction.model import Candidate, Existing, Message

pytestmark = pytest.mark.unit

KINDS = ["guidance", "fact", "event", "reference"]

CONVERSATION = [
    Message(role="user", text="Caroline: I love painting. How are you?", id="D1:1", turn=1),
    Message(role="assistant", text="I'm great! I love that you paint.", id="D1:2", turn=1),
    Message(
        role="user",
        text="I'm a nurse and I live in Paris. My dog's name is Rex.",
        id="e3",
        turn=2,
    ),
    Message(
        role="user",
        text="My password is hunter2. We decided to use Postgres for the project.",
        id="e4",
        turn=3,
    ),
    Message(
        role="user",
        text="Actually, I live in Berlin now. I prefer tea over coffee. No problem.",
        id="e5",
        speaker="Mel",
        turn=4,
    ),
]


def propose(messages, kinds=KINDS):
    return RuleBasedModel().propose(messages, "keep facts", kinds, {})


def test_a_small_conversation_gives_these_candidates():
    result = propose(CONVERSATION)
    assert [(c.summary, c.kind, c.sources, c.correction) for c in result.value] == [
        ("Caroline loves painting", "fact", ["D1:1"], False),
        ("User is a nurse and User lives in Paris", "fact", ["e3"], False),
        ("User's dog's name is Rex", "fact", ["e3"], False),
        (
            "The user and the assistant decided to use Postgres for the project",
            "event",
            ["e4"],
            False,
        ),
        ("Mel lives in Berlin now", "fact", ["e5"], True),
        ("Mel prefers tea over coffee", "fact", ["e5"], False),
    ]
    assert result.value[0].content == 'Caroline said: "I love painting."'


def test_assistant_messages_questions_and_secrets_are_never_candidates():
    result = propose(
        [
            Message(role="assistant", text="I live in the cloud.", id="a"),
            Message(role="user", text="Do I like jazz? My API key is sk-123.", id="b"),
            Message(role="user", text="I'm sure. My pin code is 1234.", id="c"),
        ]
    )
    assert result.value == []


def test_usage_is_rule_based_at_four_characters_a_token():
    result = propose([Message(role="user", text="I love painting.", id="x")])
    [usage] = result.usage
    assert usage.model_id == "rule-based"
    assert usage.input_tokens == (len("keep facts" + "I love painting.") + 3) // 4
    assert usage.output_tokens == (len("User loves painting") + 3) // 4


def test_an_undeclared_kind_falls_back_to_the_first_declared_one():
    [candidate] = propose([Message(role="user", text="I love jazz.")], kinds=["note"]).value
    assert candidate.kind == "note"
    assert candidate.sources == []


def test_extraction_is_deterministic_and_repeats_are_proposed_once():
    messages = [
        Message(role="user", text="I love jazz. I love jazz!", id="1"),
        Message(role="user", text="I love jazz.", id="2"),
    ]
    assert propose(messages).value == propose(messages).value
    assert [c.summary for c in propose(messages).value] == ["User loves jazz"]


@pytest.mark.parametrize(
    ("verb", "expected"),
    [
        ("love", "loves"),
        ("teach kids", "teaches kids"),
        ("study law", "studies law"),
        ("play golf", "plays golf"),
        ("have", "has"),
        ("went home", "went home"),
        ("don't like", "doesn't like"),
    ],
)
def test_third_person(verb, expected):
    assert third_person(verb) == expected


def candidate(summary, correction=False):
    return Candidate(summary=summary, kind="fact", correction=correction)


def test_a_restated_fact_is_skipped():
    paris = Existing(id="mem-1", summary="User lives in Paris", kind="fact")
    result = RuleBasedModel().decide(
        [candidate("User lives in Paris")], {0: [paris, Existing(id="x", summary="b", kind="fact")]}
    )
    [decision] = result.value
    assert (decision.candidate, decision.action, decision.target) == (0, "skip", "mem-1")
    assert result.usage[0].model_id == "rule-based"


def test_a_correction_replaces_the_memory_it_corrects():
    paris = Existing(id="mem-1", summary="User lives in Paris", kind="fact")
    [decision] = (
        RuleBasedModel()
        .decide([candidate("User lives in Berlin", correction=True)], {0: [paris]})
        .value
    )
    assert (decision.action, decision.target) == ("replace", "mem-1")
    assert jaccard("User lives in Berlin", "User lives in Paris") == pytest.approx(0.6)


def test_the_same_subject_without_a_correction_is_added():
    paris = Existing(id="mem-1", summary="User lives in Paris", kind="fact")
    [decision] = RuleBasedModel().decide([candidate("User lives in Berlin")], {0: [paris]}).value
    assert (decision.action, decision.target) == ("add", None)


def test_a_repeat_within_the_batch_is_skipped_and_a_record_is_replaced_once():
    paris = Existing(id="mem-1", summary="User lives in Paris", kind="fact")
    decisions = (
        RuleBasedModel()
        .decide(
            [
                candidate("User lives in Berlin", correction=True),
                candidate("User lives in Berlin", correction=True),
                candidate("User lives in Rome now", correction=True),
                candidate("User owns a cat"),
            ],
            {0: [paris], 1: [paris], 2: [paris]},
        )
        .value
    )
    assert [(d.candidate, d.action, d.target) for d in decisions] == [
        (0, "replace", "mem-1"),
        (1, "skip", None),
        (2, "add", None),
        (3, "add", None),
    ]


def test_a_similarity_function_can_be_passed_in():
    always = RuleBasedModel(similarity=lambda a, b: 0.9)
    [decision] = always.decide(
        [candidate("anything")], {0: [Existing(id="m", summary="other", kind="fact")]}
    ).value
    assert decision.action == "skip"


def test_corrections_end_to_end_replace_what_was_remembered():
    model = RuleBasedModel()
    [first] = model.propose([Message(role="user", text="I live in Paris.")], "", KINDS, {}).value
    [second] = model.propose(
        [Message(role="user", text="Correction: I live in Berlin.")], "", KINDS, {}
    ).value
    assert second.correction
    known = Existing(id="mem-7", summary=first.summary, kind=first.kind)
    [decision] = model.decide([second], {0: [known]}).value
    assert (decision.action, decision.target) == ("replace", "mem-7")


@pytest.mark.parametrize(
    ("said", "summaries"),
    [
        # A leading time moves to the end of the summary, where it still dates the fact.
        ("Last Friday I went to a council meeting.", ["Mel went to a council meeting last friday"]),
        # Interjections carry nothing; the fact after them is kept.
        (
            "Yeah, I painted that lake sunrise last year!",
            ["Mel painted that lake sunrise last year"],
        ),
        # A first-person clause inside a sentence.
        (
            "They've been great, I've known them for 4 years.",
            ["Mel has known them for 4 years"],
        ),
        # Any verb of the speaker's own doing, and what they did with others.
        ("I ran a charity race for mental health.", ["Mel ran a charity race for mental health"]),
        ("We went camping in the mountains.", ["Mel and others went camping in the mountains"]),
        # Something of theirs named mid-sentence.
        (
            "Painting is how I express my feelings.",
            ["Mel: Painting is how Mel expresses Mel's feelings"],
        ),
        # The people and things in their life, in the speaker's words.
        (
            "They were stoked for the dinosaur exhibit!",
            ["Mel: They were stoked for the dinosaur exhibit"],
        ),
        ("They look so happy in that photo of you.", []),  # about the listener
        ("It was fun.", []),  # too short to say anything
        # Filler and talk about the listener are not facts about the speaker.
        ("I think that makes sense.", []),
        ("I love you guys so much.", []),
        ("I mean it was fine.", []),
    ],
)
def test_first_person_statements_in_conversation(said, summaries):
    result = propose([Message(role="user", text=said, id="m1", speaker="Mel")])
    assert [c.summary for c in result.value] == summaries


def test_content_quotes_the_sentence_with_when_it_was_said():
    message = Message(
        role="user", text="I adopted a cat.", id="D3:1", speaker="Mel", time="8 May, 2023"
    )
    [candidate] = propose([message]).value
    assert candidate.content == 'Mel said on 8 May, 2023: "I adopted a cat."'
    assert candidate.sources == ["D3:1"]


def test_a_very_long_sentence_is_quoted_in_part_and_never_breaks_the_review():
    # A pasted build log is one "sentence"; the candidate must still be valid.
    text = "My build log is " + "word " * 3_000
    [candidate] = propose([Message(role="user", text=text, id="m1", speaker="Mel")]).value
    assert len(candidate.content or "") <= 8_000
    assert candidate.content.endswith('…"')
    assert len(candidate.summary) <= 500


@pytest.mark.parametrize(
    ("said", "summaries"),
    [
        # A decision without "to" reads "decided that ...", never "decided to the ...".
        (
            "We decided the tag format is vX.Y.Z.",
            ["The user and the assistant decided that the tag format is vX.Y.Z"],
        ),
        ("We agreed on weekly releases.", ["The user and the assistant agreed on weekly releases"]),
        ("My friend said I've changed a lot.", ["User: their friend said User has changed a lot"]),
        # Retractions in the shapes decide reads back.
        ("I don't use Vim anymore.", ["User no longer uses Vim"]),
        ("I'm not vegetarian any more.", ["User is no longer vegetarian"]),
        ("Please forget that I use Vim.", ["User asked to forget that User uses Vim"]),
        ("Actually, I never liked jazz.", ["User never liked jazz"]),
        ("I still live in Lisbon.", ["User still lives in Lisbon"]),
        # Agreement and talk are not corrections, and hold no fact.
        ("Actually, that's right.", []),
        ("No, it's fine, thanks.", []),
        ("I don't think Vim is bad.", []),
    ],
)
def test_summaries_are_never_garbled(said, summaries):
    assert [c.summary for c in propose([Message(role="user", text=said)]).value] == summaries


def decide_on(summary, correction, *existing):
    shown = [Existing(id=f"r{i}", summary=s, kind="fact") for i, s in enumerate(existing, 1)]
    [decision] = RuleBasedModel().decide([candidate(summary, correction)], {0: shown}).value
    return decision.action, decision.target


def test_a_retraction_deletes_the_record_it_takes_back_and_nothing_else():
    assert decide_on("User no longer uses Vim", True, "User lives in Lisbon", "User uses Vim") == (
        "delete",
        "r2",
    )
    # Another subject, another tool, or a denial that is not a correction: nothing is deleted.
    assert decide_on("User's colleague no longer uses Vim", False, "User uses Vim")[0] == "add"
    assert decide_on("User no longer uses Emacs", True, "User uses Vim")[0] == "add"
    assert decide_on("User doesn't use Vim at work", False, "User uses Vim")[0] == "add"


def test_a_restatement_in_other_words_is_skipped():
    assert decide_on("User lives in Porto", False, "The user lives in Porto, Portugal") == (
        "skip",
        "r1",
    )
    assert decide_on("User still lives in Lisbon", True, "User lives in Lisbon") == ("skip", "r1")


def test_a_correction_replaces_the_record_of_the_same_relation():
    assert decide_on(
        "User moved to Berlin", False, "User works at Acme", "User lives in Lisbon"
    ) == (
        "replace",
        "r2",
    )
    assert decide_on("User is a teacher now, not a nurse", True, "User is a nurse") == (
        "replace",
        "r1",
    )
    # Said as an addition ("too"), or about someone else: added beside it.
    assert decide_on("User lives in Porto too", True, "User lives in Lisbon")[0] == "add"
    assert decide_on("User's sister lives in Porto now", True, "User lives in Lisbon")[0] == "add"


def test_a_short_memory_or_another_speakers_decision_is_not_restated():
    # One word more than a memory of one word is another thing (seen on LoCoMo).
    assert decide_on("Mel is so happy for you", False, "Mel is here for you")[0] == "add"
    assert decide_on("Mel is thankful to have them", False, "Mel loves to")[0] == "add"
    jon = "Jon and the assistant decided to go to a dance class"
    assert decide_on("Gina and the assistant decided to go", False, jon)[0] == "add"
    assert decide_on("Jon and the assistant decided to go", False, jon) == ("skip", "r1")
