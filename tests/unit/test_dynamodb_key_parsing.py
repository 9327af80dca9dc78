"""Reading keys back (adapters/dynamodb/keys.py): the stream indexer knows an item only by its
keys, and asks keys.py, whose builders made them, which item they name."""

import pytest

from agent_memory.adapters.dynamodb import keys

T, A = "acme", "teams/web"


def test_record_and_file_heads_are_read_back_from_the_keys_their_builders_make():
    record = (keys.records_pk(T, A), keys.record_sk("rec_1"))
    assert keys.parse_head(*record) == (T, A, "record", "rec_1")
    memory = (keys.files_pk(T, A), keys.file_sk("/memories/notes#1.md"))
    assert keys.parse_head(*memory) == (T, A, "file", "/memories/notes#1.md")


@pytest.mark.parametrize(
    ("pk", "sk"),
    [
        (keys.record_versions_pk(T, A, "rec_1"), keys.record_version_sk(1)),  # a version
        (keys.preview_files_pk(T, A), keys.file_sk("/memories/a.md")),  # a preview file
        (keys.file_versions_pk(T, A), keys.file_version_sk("v1")),
        (keys.agent_pk(T, A), keys.session_sk("ses_1")),
        (keys.agents_pk(T), keys.agent_sk(A)),
        (keys.records_pk(T, A), keys.file_sk("/memories/a.md")),  # the wrong kind of sort key
        ("T##A#x#R", "R#rec_1"),  # no tenant
        ("X#acme#A#x#R", "R#rec_1"),
        ("", ""),
    ],
)
def test_every_other_item_is_no_head(pk, sk):
    assert keys.parse_head(pk, sk) is None


def test_history_events_are_told_from_their_markers_and_from_other_partitions():
    session = keys.session_pk(T, A, "ses_1")
    assert keys.is_history_event(session, keys.event_sk(1, 2, "evt_1"))
    assert not keys.is_history_event(session, keys.event_id_sk("evt_1"))
    assert not keys.is_history_event(session, keys.turn_sk("trn_1"))
    assert not keys.is_history_event(keys.agent_pk(T, A), keys.event_sk(1, 2, "evt_1"))
    assert not keys.is_history_event(keys.records_pk(T, A), keys.event_sk(1, 2, "evt_1"))
    assert not keys.is_history_event(f"{session}#X", keys.event_sk(1, 2, "evt_1"))


def test_turns_are_told_from_the_other_items_of_their_session_and_from_other_partitions():
    session = keys.session_pk(T, A, "ses_1")
    assert keys.is_turn(session, keys.turn_sk("trn_1"))
    assert not keys.is_turn(session, keys.execution_sk("trn_1", "exe_1"))
    assert not keys.is_turn(session, keys.event_sk(1, 2, "evt_1"))
    # A session item lives in the agent's partition; a turn key elsewhere is no turn.
    assert not keys.is_turn(keys.agent_pk(T, A), keys.turn_sk("trn_1"))
    assert not keys.is_turn(keys.records_pk(T, A), keys.turn_sk("trn_1"))
    assert not keys.is_turn(f"{session}#X", keys.turn_sk("trn_1"))
