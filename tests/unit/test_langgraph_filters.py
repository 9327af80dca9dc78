"""The LangGraph store's matching rules (integrations/langgraph_filters.py) answer as LangGraph's
own InMemoryStore answers, case by case."""

from __future__ import annotations

from typing import Any

import pytest
from langgraph.store.base import MatchCondition
from langgraph.store.memory import _compare_values, _does_match

from agent_memory.integrations.langgraph_filters import namespace_matches, value_matches

pytestmark = pytest.mark.unit

VALUE = {"n": 3, "tag": "red", "meta": {"on": True, "level": 2}, "tags": ["a", "b"], "none": None}


@pytest.mark.parametrize(
    "wanted",
    [
        {"tag": "red"},
        {"tag": "blue"},
        {"missing": None},
        {"none": None},
        {"n": {"$eq": 3}},
        {"n": {"$ne": 3}},
        {"n": {"$gt": 2, "$lte": 3}},
        {"n": {"$gte": 4}},
        {"n": {"$lt": "3.5"}},  # numbers compared as numbers, as LangGraph does
        {"meta": {"on": True}},
        {"meta": {"level": {"$gt": 1}}},
        {"meta": {"on": False}},
        {"tag": {"on": True}},  # a nested filter on a value that is no dict
        {"tags": ["a", "b"]},
        {"tags": ["a"]},
        {"tags": ["a", {"$ne": "c"}]},  # a list compared item by item
    ],
)
def test_a_filter_matches_as_langgraphs_does(wanted: dict[str, Any]) -> None:
    ours = all(value_matches(VALUE.get(k), v) for k, v in wanted.items())
    theirs = all(_compare_values(VALUE.get(k), v) for k, v in wanted.items())

    assert ours == theirs


def test_an_unknown_operator_or_a_comparison_of_no_number_is_refused_clearly() -> None:
    with pytest.raises(ValueError, match=r"unsupported filter operator: \$in"):
        value_matches(1, {"$in": [1]})
    with pytest.raises(ValueError, match=r"filter \$gt compares numbers: 'red', 1"):
        value_matches("red", {"$gt": 1})
    # A value the item lacks is not greater than anything (LangGraph would raise TypeError).
    assert value_matches(None, {"$gt": 1}) is False


NAMESPACES = [("a", "b", "c"), ("a", "x"), ("z",), ("a", "b", "c", "d")]


@pytest.mark.parametrize(
    ("match_type", "path"),
    [
        ("prefix", ()),
        ("suffix", ()),
        ("prefix", ("a",)),
        ("prefix", ("*", "b")),
        ("prefix", ("a", "*", "c")),
        ("suffix", ("c",)),
        ("suffix", ("*", "c")),
        ("suffix", ("b", "*")),
        ("prefix", ("a", "b", "c", "d", "e")),
        ("suffix", ("*", "*", "*", "*", "*")),
    ],
)
def test_a_namespace_condition_matches_as_langgraphs_does(
    match_type: str, path: tuple[str, ...]
) -> None:
    condition = MatchCondition(match_type=match_type, path=path)  # type: ignore[arg-type]
    for namespace in NAMESPACES:
        assert namespace_matches(condition, namespace) == _does_match(condition, namespace)


def test_an_unknown_match_type_is_refused() -> None:
    condition = MatchCondition(match_type="infix", path=("a",))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unsupported namespace match type: 'infix'"):
        namespace_matches(condition, ("a",))
