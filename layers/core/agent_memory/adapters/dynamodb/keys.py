"""The single-table key layout. Every key starts with the tenant, so nothing crosses tenants.

    agent head        pk T#{tenant}#AGENTS                   sk A#{agentId}
    manifest version  pk T#{tenant}#A#{agentId}              sk MV#{version:010d}
    session           pk T#{tenant}#A#{agentId}              sk S#{sessionId}
    turn              pk T#{tenant}#A#{agentId}#S#{session}  sk TURN#{turnId}
    execution         pk T#{tenant}#A#{agentId}#S#{session}  sk X#{turnId}#{executionId}
    staged effect     pk T#{tenant}#A#{agentId}#S#{session}  sk FX#{turnId}#{sequence:06d}
    effect id marker  pk T#{tenant}#A#{agentId}#S#{session}  sk FXID#{turnId}#{effectId}
    record head       pk T#{tenant}#A#{agentId}#R            sk R#{recordId}
    record version    pk T#{tenant}#A#{agentId}#R#{recordId} sk V#{version:08d}
    file memory head  pk T#{tenant}#A#{agentId}#F            sk F#{path}
    file version      pk T#{tenant}#A#{agentId}#FV           sk V#{versionId}
    preview file      pk T#{tenant}#A#{agentId}#PF           sk F#{path}
    memory count      pk T#{tenant}#A#{agentId}              sk FCOUNT
    session index     pk T#{tenant}#A#{agentId}#S#{session}  sk INDEX
    history event     pk T#{tenant}#A#{agentId}#S#{session}  sk EV#{turn:010d}#{sequence:010d}#{eventId}
    event id marker   pk T#{tenant}#A#{agentId}#S#{session}  sk EVID#{eventId}
    consolidation run pk T#{tenant}#A#{agentId}              sk CR#{runId}
    usage entry       pk T#{tenant}#A#{agentId}#U            sk U#{usageId}
    usage total       pk T#{tenant}#A#{agentId}#U            sk TOTAL#["{purpose}","{modelId}"]
    tenant limits     pk T#{tenant}#LIMITS                   sk LIMITS
    audit entry       pk T#{tenant}#AUDIT                    sk AU#{auditId}
    audited once      pk T#{tenant}#AUDIT                    sk AO#{change}
    named manifest    pk T#{tenant}#NM                       sk NM#{name}
    its version       pk T#{tenant}#NM#{name}                sk NMV#{version:010d}
    word posting      pk T#{tenant}#A#{agentId}#W#{kind}     sk WP#{word}#{docId}
    word document     pk T#{tenant}#A#{agentId}#W#{kind}     sk WD#{docId}
    word totals       pk T#{tenant}#A#{agentId}#W#{kind}     sk WN
    scheduled agent   pk SCHEDULE#CONSOLIDATION              sk CS#T#{tenant}#A#{agentId}

The scheduled agents' partition is the one exception to the tenant-first rule: a marker for each
agent whose manifest sets harness.memory.consolidation.every, written and removed in the same
transaction as the manifest, so the scheduled consolidation function lists them with one Query.
Its sort keys start `CS#`, which no stream filter of the template matches.

An agent owns its whole `T#{tenant}#A#{agentId}` partition, through each session item the
session's own partition, its records partition, through each record head the record's
versions partition, and its file, file version, preview file and usage partitions; deleting an agent walks exactly
those. Ids never contain `#`, so no two of these partitions can be the same and a prefix
(`X#{turnId}#`) selects exactly one turn's items. A path may contain `#` (any character but a
control character): it only ever ends a sort key, so it cannot reach another item's key.

The word partitions (`#W#{kind}`) are the S3 Vectors search backend's lexical half
(adapters/s3vectors): derived data that its `delete_agent` removes, as it removes the agent's vector
index. Words are letters and digits only (domain/search/lexical.py), so `WP#{word}#` selects exactly
one word's postings; `WP#`, `WD#` and `WN` match none of the stream indexer's prefixes.

History events sort by (turn sequence, sequence) inside their session's partition, so a session's
history is one Query in order; the marker of an event id names its ordered key. `EV#` sorts
before `EVID#` ('#' < 'I'), so a range of `EV#` keys never reaches a marker. An event too large
for an item keeps its document in S3 under `history/{tenant}/{agent}/{session}/` (each part
percent-encoded, see `history_prefix`), and its item keeps the object's key instead.
"""

from __future__ import annotations

import hashlib
import json
from typing import Literal
from urllib.parse import quote

AGENT = "A#"
VERSION = "MV#"
SESSION = "S#"
TURN = "TURN#"
EXECUTION = "X#"
EFFECT = "FX#"
EFFECT_ID = "FXID#"
RECORD = "R#"
RECORD_VERSION = "V#"
VERSION_DIGITS = 10
RECORD_VERSION_DIGITS = 8
SEQUENCE_DIGITS = 6
FILE = "F#"
FILE_KEY_BYTES = 1_024  # DynamoDB's sort key limit: every key that fits is the path itself
FILE_VERSION = "V#"
# In the agent partition, sorting before its MV# and S# items (readers stop at another kind).
FILE_COUNT = "FCOUNT"
SESSION_INDEX = "INDEX"
TENANT_LIMITS = "LIMITS"
AUDIT = "AUDIT"
AUDIT_ENTRY = "AU#"
USAGE = "U#"
CONSOLIDATION = "CR#"
USAGE_TOTAL = "TOTAL#"
EVENT = "EV#"
EVENT_ID = "EVID#"
EVENT_DIGITS = 10
# Sorts after every digit: `EV#{turn}#~` bounds a turn's events from above, `EV#~` all events.
_AFTER_DIGITS = "~"
HISTORY_OBJECTS = "history/"
WORD_POSTING = "WP#"
WORD_DOCUMENT = "WD#"
WORD_TOTALS = "WN"


def _part(value: str) -> str:
    # Ids never contain `#` (agent, session and turn ids are validated by the services), and a
    # tenant that did could reach into another tenant's partitions, so refuse it outright.
    if "#" in value:
        raise ValueError(f"{value!r} cannot be part of a key: it contains '#'")
    return value


def agents_pk(tenant: str) -> str:
    return f"T#{_part(tenant)}#AGENTS"


def tenant_limits_pk(tenant: str) -> str:
    return f"T#{_part(tenant)}#{TENANT_LIMITS}"


def audit_pk(tenant: str) -> str:
    return f"T#{_part(tenant)}#{AUDIT}"


NAMED_MANIFEST = "NM#"
NAMED_MANIFEST_VERSION = "NMV#"


def named_manifests_pk(tenant: str) -> str:
    return f"T#{_part(tenant)}#NM"


def named_manifest_sk(name: str) -> str:
    return NAMED_MANIFEST + _part(name)


def named_manifest_versions_pk(tenant: str, name: str) -> str:
    return f"T#{_part(tenant)}#NM#{_part(name)}"


def named_manifest_version_sk(version: int) -> str:
    return f"{NAMED_MANIFEST_VERSION}{version:010d}"


def audit_sk(audit_id: str) -> str:
    return f"{AUDIT_ENTRY}{audit_id}"


# A change audited once only (a TTL purge, which a retried stream batch reports again): its
# marker beside the entries, which `AU#` listings never reach.
AUDIT_ONCE = "AO#"


def audit_once_sk(change: str) -> str:
    return f"{AUDIT_ONCE}{change}"


def agent_sk(agent_id: str) -> str:
    return AGENT + _part(agent_id)


def agent_pk(tenant: str, agent_id: str) -> str:
    return f"T#{_part(tenant)}#{AGENT}{_part(agent_id)}"


def version_suffix(version: int) -> str:
    return f"{version:0{VERSION_DIGITS}d}"


def version_sk(version: int) -> str:
    return VERSION + version_suffix(version)


def session_sk(session_id: str) -> str:
    return SESSION + _part(session_id)


def session_pk(tenant: str, agent_id: str, session_id: str) -> str:
    return f"{agent_pk(tenant, agent_id)}#{SESSION}{_part(session_id)}"


def turn_sk(turn_id: str) -> str:
    return TURN + _part(turn_id)


def execution_prefix(turn_id: str) -> str:
    return f"{EXECUTION}{_part(turn_id)}#"


def execution_sk(turn_id: str, execution_id: str) -> str:
    return execution_prefix(turn_id) + _part(execution_id)


def effect_prefix(turn_id: str) -> str:
    return f"{EFFECT}{_part(turn_id)}#"


def effect_sk(turn_id: str, sequence: int) -> str:
    return f"{effect_prefix(turn_id)}{sequence:0{SEQUENCE_DIGITS}d}"


def effect_id_sk(turn_id: str, effect_id: str) -> str:
    return f"{EFFECT_ID}{_part(turn_id)}#{_part(effect_id)}"


def records_pk(tenant: str, agent_id: str) -> str:
    return f"{agent_pk(tenant, agent_id)}#R"


def record_sk(record_id: str) -> str:
    return RECORD + _part(record_id)


def record_versions_pk(tenant: str, agent_id: str, record_id: str) -> str:
    return f"{records_pk(tenant, agent_id)}#{_part(record_id)}"


def record_version_sk(version: int) -> str:
    return f"{RECORD_VERSION}{version:0{RECORD_VERSION_DIGITS}d}"


def files_pk(tenant: str, agent_id: str) -> str:
    return f"{agent_pk(tenant, agent_id)}#F"


def preview_files_pk(tenant: str, agent_id: str) -> str:
    # `#PF`, not `#F`: the stream indexer takes `#F` partitions for live heads.
    return f"{agent_pk(tenant, agent_id)}#PF"


def file_sk(path: str) -> str:
    """`F#{path}`; a path whose key would pass DynamoDB's 1,024 bytes a sort key holds (512
    characters of up to 4 bytes each) keeps its first bytes and a digest of the whole path.
    Such a key ends in hex digits, never in `.md`, so it never equals a path's own key."""
    key = FILE + path
    if len(key.encode()) <= FILE_KEY_BYTES:
        return key
    digest = hashlib.sha256(path.encode()).hexdigest()[:32]
    return f"{file_sk_prefix(path)}#{digest}"


def file_sk_prefix(prefix: str) -> str:
    """The start every key of a path beginning with `prefix` shares (a long one's cut)."""
    room = FILE_KEY_BYTES - 33  # "#" and 32 hex digits
    return (FILE + prefix).encode()[:room].decode("utf-8", "ignore")


def file_versions_pk(tenant: str, agent_id: str) -> str:
    return f"{agent_pk(tenant, agent_id)}#FV"


def file_version_sk(version_id: str) -> str:
    # Version ids come from callers too (GET .../versions/{id}); a `#` in one is harmless here,
    # at the end of a sort key, and simply matches nothing.
    return FILE_VERSION + version_id


def usage_pk(tenant: str, agent_id: str) -> str:
    return f"{agent_pk(tenant, agent_id)}#U"


def usage_sk(usage_id: str) -> str:
    return USAGE + usage_id


def usage_total_sk(purpose: str, model_id: str) -> str:
    # JSON keeps any purpose and model id apart, whatever characters they hold.
    return USAGE_TOTAL + json.dumps([purpose, model_id], ensure_ascii=False)


def words_pk(tenant: str, agent_id: str, kind: str) -> str:
    return f"{agent_pk(tenant, agent_id)}#W#{_part(kind)}"


def word_prefix(word: str) -> str:
    """The start of every posting of one word (words hold no `#`)."""
    return f"{WORD_POSTING}{_part(word)}#"


def word_posting_sk(word: str, doc_id: str) -> str:
    # A document id (a file path may hold `#`) only ever ends the key.
    return word_prefix(word) + doc_id


def word_document_sk(doc_id: str) -> str:
    return WORD_DOCUMENT + doc_id


def _number(value: int) -> str:
    # Negative numbers and numbers of more digits would not sort as numbers do: clamp them.
    return f"{min(max(value, 0), 10**EVENT_DIGITS - 1):0{EVENT_DIGITS}d}"


def event_sk(turn_sequence: int, sequence: int, event_id: str) -> str:
    return f"{EVENT}{_number(turn_sequence)}#{_number(sequence)}#{_part(event_id)}"


def event_id_sk(event_id: str) -> str:
    return EVENT_ID + _part(event_id)


def events_from(turn_sequence: int, sequence: int = 0) -> str:
    """The lowest sort key of an event at (turn_sequence, sequence) or later."""
    return f"{EVENT}{_number(turn_sequence)}#{_number(sequence)}#"


def events_through(turn_sequence: int | None) -> str:
    """Above the sort key of every event up to turn_sequence (of every event when None)."""
    if turn_sequence is None:
        return EVENT + _AFTER_DIGITS
    return f"{EVENT}{_number(turn_sequence)}#{_AFTER_DIGITS}"


def _segment(value: str) -> str:
    # Agent ids hold `/` (teams/web): encoded, `teams/web/` cannot be a prefix of another agent's
    # objects (teams/web/releases), so an agent's objects are exactly those under its prefix.
    return quote(value, safe="")


def history_prefix(tenant: str, agent_id: str) -> str:
    """Where an agent's large history events are kept in the bucket, and nothing else."""
    return f"{HISTORY_OBJECTS}{_segment(tenant)}/{_segment(agent_id)}/"


def history_object(tenant: str, agent_id: str, session_id: str, event_id: str, token: str) -> str:
    """An event's object: `token` is new for each write, so a writer that loses the race to
    keep an event id can never overwrite the object the winner's item points at."""
    return f"{history_prefix(tenant, agent_id)}{_segment(session_id)}/{_segment(event_id)}.{token}.json"


# -- reading keys back (the stream indexer sees items only as their keys and images) ----------


def _owner(pk: str) -> tuple[str, str] | None:
    """(tenant, agent id) of a key in one of an agent's partitions; None for any other key.
    Ids hold no `#` (see `_part`), so splitting on it undoes `agent_pk`."""
    parts = pk.split("#")
    if len(parts) < 4 or parts[0] != "T" or f"{parts[2]}#" != AGENT:
        return None
    if not parts[1] or not parts[3]:
        return None
    return parts[1], parts[3]


def agent_of(pk: str) -> tuple[str, str] | None:
    """(tenant, agent id) owning a partition key; None for a key no agent owns."""
    return _owner(pk)


def parse_head(pk: str, sk: str) -> tuple[str, str, Literal["record", "file"], str] | None:
    """(tenant, agent id, kind, id) of a record or file head; None for every other item. A long
    path's id is its key's cut form (`file_sk`): the item's `path` attribute holds it whole."""
    owner = _owner(pk)
    if owner is None:
        return None
    tenant, agent_id = owner
    if pk == records_pk(tenant, agent_id) and sk.startswith(RECORD):
        return tenant, agent_id, "record", sk[len(RECORD) :]
    if pk == files_pk(tenant, agent_id) and sk.startswith(FILE):
        return tenant, agent_id, "file", sk[len(FILE) :]
    return None


def _in_session(pk: str, sk: str, prefix: str) -> bool:
    owner = _owner(pk)
    if owner is None or not sk.startswith(prefix):
        return False
    session_id = pk.split("#")[-1]
    return bool(session_id) and pk == session_pk(*owner, session_id)


def is_history_event(pk: str, sk: str) -> bool:
    """Whether the item is a history event (`EV#` in a session's partition; not its marker)."""
    return _in_session(pk, sk, EVENT)


def is_turn(pk: str, sk: str) -> bool:
    """Whether the item is a turn (`TURN#` in a session's partition)."""
    return _in_session(pk, sk, TURN)


def consolidation_sk(run_id: str) -> str:
    return f"{CONSOLIDATION}{run_id}"


# The one partition that crosses tenants: which agents are consolidated on a schedule, so the
# scheduled function finds them with one Query instead of a Scan. Read only by that function.
CONSOLIDATION_SCHEDULE_PK = "SCHEDULE#CONSOLIDATION"
CONSOLIDATION_SCHEDULE = "CS#"


def consolidation_schedule_sk(tenant: str, agent_id: str) -> str:
    return f"{CONSOLIDATION_SCHEDULE}T#{_part(tenant)}#{AGENT}{_part(agent_id)}"
