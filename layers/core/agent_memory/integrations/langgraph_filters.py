"""LangGraph's matching rules, as its stores apply them: a namespace against a
`list_namespaces` condition, a value against a search's `filter`."""

from __future__ import annotations

from typing import Any


def namespace_matches(condition: Any, namespace: tuple[str, ...]) -> bool:
    """LangGraph's match: the namespace begins (`prefix`) or ends (`suffix`) with the path,
    `*` matching any one label."""
    path = tuple(condition.path)
    if len(namespace) < len(path):
        return False
    if condition.match_type == "prefix":
        part = namespace[: len(path)]
    elif condition.match_type == "suffix":
        part = namespace[len(namespace) - len(path) :]
    else:
        raise ValueError(f"unsupported namespace match type: {condition.match_type!r}")
    return all(p == "*" or p == n for p, n in zip(path, part, strict=True))


def value_matches(value: Any, wanted: Any) -> bool:
    """LangGraph's filter semantics: exact values, nested dicts, lists item by item, and
    $-operators."""
    if isinstance(wanted, dict):
        if any(k.startswith("$") for k in wanted):
            return all(_operator(value, k, v) for k, v in wanted.items())
        return isinstance(value, dict) and all(
            value_matches(value.get(k), v) for k, v in wanted.items()
        )
    if isinstance(wanted, list | tuple):
        return (
            isinstance(value, list | tuple)
            and len(value) == len(wanted)
            and all(value_matches(v, w) for v, w in zip(value, wanted, strict=True))
        )
    return bool(value == wanted)


def _operator(value: Any, operator: str, operand: Any) -> bool:
    if operator == "$eq":
        return bool(value == operand)
    if operator == "$ne":
        return bool(value != operand)
    if value is None:
        return False
    compare = {
        "$gt": lambda a, b: a > b,
        "$gte": lambda a, b: a >= b,
        "$lt": lambda a, b: a < b,
        "$lte": lambda a, b: a <= b,
    }.get(operator)
    if compare is None:
        raise ValueError(f"unsupported filter operator: {operator}")
    try:
        return bool(compare(float(value), float(operand)))
    except (TypeError, ValueError) as exc:
        raise ValueError(f"filter {operator} compares numbers: {value!r}, {operand!r}") from exc
