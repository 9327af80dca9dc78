"""The corpus of tests/extraction_corpus.py through RuleBasedModel alone: corrections replace,
retractions delete, restatements skip, look-alikes change nothing, and no summary is garbled.

The floors are what the rules reach (benchmarks/RESULTS.md has the table); a change to the
rules that loses any of it fails here."""

import pytest

from extraction_corpus import ACTIONS, CASES, run_model

pytestmark = pytest.mark.unit

# (precision, recall) of each action, and of all of them.
FLOORS = {
    "add": (0.90, 1.00),
    "replace": (1.00, 0.85),
    "delete": (1.00, 0.95),
    "skip": (1.00, 1.00),
    None: (0.95, 0.95),
}


def test_the_corpus_is_large_and_varied():
    groups = {c.group.removeprefix("held-out ") for c in CASES}
    assert len(CASES) >= 40
    assert {"correction", "retraction", "restatement", "unrelated", "look-alike"} <= groups
    expected = {e.action for c in CASES for e in c.expect}
    assert expected == set(ACTIONS)
    assert sum(1 for c in CASES if c.group.endswith("look-alike")) >= 10


def test_the_rules_reach_their_floors_on_the_corpus():
    tally = run_model()
    for action, (precision, recall) in FLOORS.items():
        assert tally.precision(action) >= precision, (action, tally.misses)
        assert tally.recall(action) >= recall, (action, tally.misses)


def test_lasting_facts_go_to_agent_scope_and_session_only_ones_stay_in_the_session():
    # Given the corpus's cases of each kind (the rules were not tuned to the held-out ones)
    cases = [c for c in CASES if c.group.endswith("scope")]
    scopes = {e.scope for c in cases for e in c.expect}
    assert scopes == {"agent", "session"} and len(cases) >= 10
    # When the rules review them, for an agent that writes both scopes
    tally = run_model(cases)
    # Then every fact is written, in the scope it belongs to
    assert tally.precision() == tally.recall() == 1.0, tally.misses


def test_no_summary_is_garbled_and_no_look_alike_changes_a_record():
    look_alikes = [c for c in CASES if c.group.endswith("look-alike")]
    tally = run_model(look_alikes)
    assert tally.garbled == []
    assert tally.fp["replace"] == tally.fp["delete"] == 0, tally.misses
    assert run_model().garbled == []
