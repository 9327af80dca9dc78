"""What a document is filtered by, kept with its vector and its word postings, and the port's
IndexFilter turned into an S3 Vectors metadata filter (for QueryVectors) or checked in Python (for
postings read from DynamoDB). Pure functions, so both are checked without AWS.

S3 Vectors' filter language (documented operators): `$eq $ne $gt $gte $lt $lte $in $nin $exists
$and $or`; `$eq` against a list value matches when any element equals, which is how a label
(`name=value`, one element each) is found.
"""

from __future__ import annotations

from typing import Any

from ...domain.search.index import IndexDoc, IndexFilter


def doc_fields(doc: IndexDoc) -> dict[str, Any]:
    """The filterable metadata of one document. Absent values are left out rather than null:
    S3 Vectors metadata takes strings, numbers, booleans and lists, not null."""
    fields: dict[str, Any] = {
        "kind": doc.kind,
        "doc_id": doc.id,
        "scope": doc.scope,
        "status": doc.status,
        "preview": doc.preview,
    }
    if doc.session_id is not None:
        fields["session_id"] = doc.session_id
    if doc.record_kind is not None:
        fields["record_kind"] = doc.record_kind
    if doc.labels:
        fields["labels"] = sorted(f"{name}={value}" for name, value in doc.labels.items())
    return fields


def _scope_filters(where: IndexFilter) -> list[dict[str, Any]]:
    scopes: list[dict[str, Any]] = []
    if where.include_agent:
        scopes.append({"scope": {"$eq": "agent"}})
    if where.include_all_sessions:
        scopes.append({"scope": {"$eq": "session"}})
    elif where.session_id is not None:
        scopes.append(
            {"$and": [{"scope": {"$eq": "session"}}, {"session_id": {"$eq": where.session_id}}]}
        )
    return scopes


def vector_filter(where: IndexFilter, model_id: str | None) -> dict[str, Any] | None:
    """The QueryVectors filter, or None when nothing can match (no scope is readable)."""
    scopes = _scope_filters(where)
    if not scopes:
        return None
    clauses: list[dict[str, Any]] = [
        {"kind": {"$eq": where.kind}},
        scopes[0] if len(scopes) == 1 else {"$or": scopes},
    ]
    for name, values in (
        ("status", where.statuses),
        ("record_kind", where.record_kinds),
        ("doc_id", where.ids),
    ):
        if values:
            clauses.append({name: {"$in": sorted(values)}})
    for name, value in sorted(where.labels.items()):
        clauses.append({"labels": {"$eq": f"{name}={value}"}})
    if where.preview != "any":
        clauses.append({"preview": {"$eq": where.preview == "only"}})
    if model_id is not None:
        clauses.append({"model_id": {"$eq": model_id}})
    return {"$and": clauses}


def matches(fields: dict[str, Any], where: IndexFilter) -> bool:
    """Whether a document with these fields (doc_fields) passes the filter: the same test as
    vector_filter, for postings, which DynamoDB reads unfiltered."""
    scope = fields.get("scope")
    session_ok = where.include_all_sessions or (
        where.session_id is not None and fields.get("session_id") == where.session_id
    )
    if not ((scope == "agent" and where.include_agent) or (scope == "session" and session_ok)):
        return False
    if fields.get("kind") != where.kind:
        return False
    for name, values in (
        ("status", where.statuses),
        ("record_kind", where.record_kinds),
        ("doc_id", where.ids),
    ):
        if values and fields.get(name) not in values:
            return False
    labels = set(fields.get("labels", ()))
    if any(f"{name}={value}" not in labels for name, value in where.labels.items()):
        return False
    return where.preview == "any" or bool(fields.get("preview")) == (where.preview == "only")
