"""The corpus of tests/extraction_corpus.py end to end: each conversation committed as a turn on
the SQLite store and reviewed by the extraction service with the default RuleBasedModel; the
decisions are read back from the records it leaves. Corrections of agent-scope memories stay in
agent scope, and what the agent wrote in the reviewed turn itself is not written again."""

import pytest

from agent_memory.adapters.sqlite import SqliteStore
from agent_memory.api.app import Api
from agent_memory.bootstrap import build_services
from agent_memory.settings import Settings
from apiclient import ApiClient
from extraction_corpus import CASES, run_model, run_service

pytestmark = pytest.mark.integration


@pytest.fixture
def sqlite_api(tmp_path):
    store = SqliteStore(tmp_path / "db.sqlite3")
    services = build_services(Settings(data_dir=tmp_path), store=store, embedder=None)
    yield ApiClient(Api(services).handle), services
    store.close()


def test_the_service_decides_as_the_model_does_on_the_whole_corpus(sqlite_api):
    api, services = sqlite_api
    tally = run_service(api, services)
    alone = run_model()
    for action in ("add", "replace", "delete", "skip"):
        assert (tally.tp[action], tally.fp[action], tally.fn[action]) == (
            alone.tp[action],
            alone.fp[action],
            alone.fn[action],
        ), (action, tally.misses)
    assert tally.precision() >= 0.95 and tally.recall() >= 0.95
    assert tally.garbled == [] and tally.narrowed == []


def test_what_the_agent_wrote_in_agent_scope_this_turn_is_not_copied_to_the_session(sqlite_api):
    api, services = sqlite_api
    same_turn = [c for c in CASES if c.same_turn]
    assert len(same_turn) >= 3
    tally = run_service(api, services, same_turn)
    assert tally.fp["add"] == 0 and tally.recall("skip") == 1.0, tally.misses
