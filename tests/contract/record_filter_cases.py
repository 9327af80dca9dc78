"""The record filter rules as one table: a spread of records over every field a filter reads,
and queries with the ids each must find, newest first.

`RecordQuery.matches` (domain/records/models.py) is the definition. Every other place that applies the
rules runs this table: the stores' `find_records` (SQLite SQL, DynamoDB's pre-filter)
in test_records_contract.py, the search indexes' pre-filters (EmbeddedIndex's SQL and numpy
mask, OpenSearchIndex's bool filter) in test_record_filter_rules.py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_memory.domain.records.models import Record, RecordQuery, RecordStatus

if TYPE_CHECKING:  # the `build` fixture; conftest is not imported at run time
    from conftest import Build

ALL = frozenset(RecordStatus)


def filter_records(build: Build, **fields: str) -> list[Record]:
    """A spread of records over scopes, statuses, kinds, labels, pins and previews (`fields`,
    such as tenant and agent_id, go to every one)."""
    return [
        build.record("rec_01", labels={"topic": "billing", "lang": "en"}, **fields),
        build.record("rec_02", session_id="ses_1", kind="preference", **fields),
        build.record(
            "rec_03", session_id="ses_2", labels={"topic": "billing", "lang": "de"}, **fields
        ),
        build.record("rec_04", status=RecordStatus.SUPERSEDED, replaced_by="rec_09", **fields),
        build.record("rec_05", status=RecordStatus.DELETED, labels={}, **fields),
        build.record("rec_06", preview=True, kind="preference", **fields),
        build.record("rec_07", pinned=True, labels={"topic": "shipping"}, **fields),
        build.record("rec_08", session_id="ses_1", preview=True, pinned=True, **fields),
        build.record(
            "rec_09", kind="decision", labels={"topic": "billing", "team": "web"}, **fields
        ),
        build.record("rec_10", session_id="ses_1", status=RecordStatus.DELETED, **fields),
        # Not "billing": a label value is matched exactly, spaces included.
        build.record("rec_11", labels={"topic": "billing ", "lang": "en"}, **fields),
    ]


FIND_CASES: list[tuple[str, RecordQuery, list[str]]] = [
    (
        "defaults_live_active_agent_records",
        RecordQuery(),
        ["rec_11", "rec_09", "rec_07", "rec_01"],
    ),
    (
        "statuses",
        RecordQuery(statuses=frozenset({RecordStatus.SUPERSEDED, RecordStatus.DELETED})),
        ["rec_05", "rec_04"],
    ),
    (
        "every_status",
        RecordQuery(statuses=frozenset()),
        ["rec_11", "rec_09", "rec_07", "rec_05", "rec_04", "rec_01"],
    ),
    ("kinds", RecordQuery(kinds=frozenset({"decision", "preference"})), ["rec_09"]),
    ("one_label", RecordQuery(labels={"topic": "billing"}), ["rec_09", "rec_01"]),
    ("two_labels", RecordQuery(labels={"topic": "billing", "lang": "en"}), ["rec_01"]),
    ("label_value_is_exact", RecordQuery(labels={"topic": "bill"}), []),
    ("absent_label", RecordQuery(labels={"team": "web", "lang": "en"}), []),
    ("label_no_record_has", RecordQuery(labels={"owner": "ops"}), []),
    (
        "ids",
        RecordQuery(ids=frozenset({"rec_01", "rec_02", "rec_04", "rec_07", "rec_zz"})),
        ["rec_07", "rec_01"],
    ),
    ("unknown_kind", RecordQuery(kinds=frozenset({"rumour"})), []),
    ("pinned", RecordQuery(pinned=True), ["rec_07"]),
    ("not_pinned", RecordQuery(pinned=False), ["rec_11", "rec_09", "rec_01"]),
    ("preview_any", RecordQuery(preview="any"), ["rec_11", "rec_09", "rec_07", "rec_06", "rec_01"]),
    ("preview_only", RecordQuery(preview="only"), ["rec_06"]),
    (
        "previews_of_every_session",
        RecordQuery(preview="only", include_all_sessions=True),
        ["rec_08", "rec_06"],
    ),
    ("one_sessions_records", RecordQuery(include_agent=False, session_id="ses_1"), ["rec_02"]),
    (
        "agent_and_one_session",
        RecordQuery(session_id="ses_2"),
        ["rec_11", "rec_09", "rec_07", "rec_03", "rec_01"],
    ),
    ("a_session_with_no_records", RecordQuery(include_agent=False, session_id="ses_9"), []),
    (
        "every_session",
        RecordQuery(include_agent=False, include_all_sessions=True),
        ["rec_03", "rec_02"],
    ),
    ("no_scope_at_all", RecordQuery(include_agent=False), []),
    (
        "everything",
        RecordQuery(statuses=frozenset(), preview="any", include_all_sessions=True),
        [f"rec_{n:02d}" for n in range(11, 0, -1)],
    ),
    (
        "all_filters_at_once",
        RecordQuery(
            statuses=ALL,
            kinds=frozenset({"fact"}),
            labels={"topic": "billing"},
            ids=frozenset({"rec_01", "rec_03", "rec_09"}),
            include_agent=False,
            session_id="ses_2",
            pinned=False,
        ),
        ["rec_03"],
    ),
]
