"""The record filter rules as SQL, once for both tables that hold records: `records` (the store's
heads, `find_records`) and `search_docs` (the embedded index's documents, its lexical search).

The rules are RecordQuery.matches (domain/records/models.py); IndexFilter carries the same ones under the
index's names. tests/contract/test_record_filter_rules.py runs one table of cases through both.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ...domain.kernel.durations import instant_key
from ...domain.records.models import RecordQuery, RecordStatus
from ...domain.search.index import IndexFilter


@dataclass(frozen=True)
class FilterColumns:
    """Where a table keeps what the rules read. `labels` is the first argument(s) of
    `json_each`, naming the JSON object of label values."""

    status: str
    kind: str
    id: str
    preview: str
    scope: str
    session: str
    labels: str


RECORD_COLUMNS = FilterColumns(
    "status", "kind", "record_id", "preview", "scope", "session_id", "doc, '$.labels'"
)
# The records table under the alias `r` (joined to its versions: as-of reads).
HEAD_COLUMNS = FilterColumns(
    "r.status", "r.kind", "r.record_id", "r.preview", "r.scope", "r.session_id", "r.doc, '$.labels'"
)
DOC_COLUMNS = FilterColumns(
    "d.status", "d.record_kind", "d.doc_id", "d.preview", "d.scope", "d.session_id", "d.labels"
)


def filter_sql(
    where: RecordQuery | IndexFilter, columns: FilterColumns, expiry_at: datetime | None = None
) -> tuple[list[str], list[Any]]:
    """The conditions (to be AND-ed) and their arguments for every rule but `pinned`, which only
    the records table keeps. Values are always bound, never spliced: a label name is data.

    With `expiry_at` (the records table, which keeps expires_at) a head stored ACTIVE whose
    expiry is at or before that instant counts as EXPIRED, as Record.seen_at says."""
    kinds = where.kinds if isinstance(where, RecordQuery) else where.record_kinds
    sql: list[str] = []
    args: list[Any] = []
    statuses = [str(s) for s in where.statuses]
    if statuses and expiry_at is not None:
        status_sql, status_args = _statuses_at(statuses, columns.status, instant_key(expiry_at))
        sql.append(status_sql)
        args += status_args
        statuses = []
    for column, values in (
        (columns.status, statuses),
        (columns.kind, list(kinds)),
        (columns.id, list(where.ids)),
    ):
        if values:
            sql.append(f"{column} IN ({','.join('?' * len(values))})")
            args += values
    if where.preview != "any":
        sql.append(f"{columns.preview} = ?")
        args.append(1 if where.preview == "only" else 0)
    scopes = []
    if where.include_agent:
        scopes.append(f"{columns.scope} = 'agent'")
    if where.include_all_sessions:
        scopes.append(f"{columns.scope} = 'session'")
    elif where.session_id is not None:
        scopes.append(f"({columns.scope} = 'session' AND {columns.session} = ?)")
        args.append(where.session_id)
    sql.append(f"({' OR '.join(scopes)})" if scopes else "0")
    for name, value in where.labels.items():
        sql.append(
            f"EXISTS (SELECT 1 FROM json_each({columns.labels}) WHERE key = ? AND value = ?)"
        )
        args += [name, value]
    return sql, args


def _statuses_at(statuses: list[str], column: str, at: str) -> tuple[str, list[Any]]:
    """The status rule judged at `at`: ACTIVE only while unexpired, EXPIRED also once due."""
    active, expired = RecordStatus.ACTIVE.value, RecordStatus.EXPIRED.value
    plain = [s for s in statuses if s not in (active, expired)]
    terms: list[str] = []
    args: list[Any] = []
    if plain:
        terms.append(f"{column} IN ({','.join('?' * len(plain))})")
        args += plain
    if active in statuses and expired in statuses:
        terms.append(f"{column} IN (?, ?)")
        args += [active, expired]
    elif active in statuses:
        terms.append(f"({column} = ? AND (expires_at IS NULL OR expires_at > ?))")
        args += [active, at]
    elif expired in statuses:
        terms.append(f"({column} = ? OR ({column} = ? AND expires_at <= ?))")
        args += [expired, active, at]
    return f"({' OR '.join(terms)})", args
