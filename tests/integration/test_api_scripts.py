"""Every script a user writes is found by its words right after its commit, before any vector
of it exists: record memory (search_memory, the records listing) and session history
(search_history), in both shapes. The background embedder is never run here, so what finds
them is the words index alone (domain/search/scripts.py)."""

from __future__ import annotations

import pytest

from agent_memory.api.app import Api
from agent_memory.bootstrap import build_services
from agent_memory.settings import Settings
from apiclient import ApiClient

pytestmark = pytest.mark.integration

A = "/v1/agents/teams/web/releases"
AGENT = {"role": "agent"}
MANIFEST = {
    "harness": {
        "memory": {
            "enabled": True,
            "scope": {"read": ["session", "agent"], "write": ["session", "agent"]},
            "tools": ["add_memory"],
        },
        "history": {"index": "messages"},
    }
}

# script -> (sentence, a word or phrase from inside it)
SENTENCES = {
    "latin": ("Le café de Zürich ouvre à huit heures", "Zurich"),
    "cyrillic": ("Сегодня мы выпускаем новую версию", "новую версию"),
    "greek": ("Η συνάντηση μεταφέρθηκε στην Τρίτη", "συνάντηση"),
    "arabic": ("نُطلق الإصدار الجديد يوم الجمعة", "الإصدار"),
    "hebrew": ("הפגישה נדחתה ליום שלישי בבוקר", "שלישי"),
    "devanagari": ("हिन्दी में लिखा गया संदेश यहाँ है", "संदेश"),
    "thai": ("ภาษาไทยเขียนโดยไม่เว้นวรรค", "ภาษาไทย"),
    "chinese": ("我们周五发布新版本", "新版本"),
    "japanese": ("これは日本語です", "日本語"),
    "korean": ("이건 한국어야", "한국어"),
    "georgian": ("ქართული ენა ძალიან ლამაზია", "ქართული"),
}


@pytest.fixture
def api(store, tmp_path, embedder) -> ApiClient:
    """The API with an embedding model whose queue is never drained: no vector is ever added."""
    services = build_services(Settings(data_dir=tmp_path), store=store, embedder=embedder)
    client = ApiClient(Api(services).handle)
    client.ok("PUT", A, MANIFEST, expect=201)
    return client


def turn(api: ApiClient, session: str) -> str:
    made = api.ok("POST", f"{A}/-/sessions/{session}/turns", expect=201)["id"]
    return f"{A}/-/sessions/{session}/turns/{made}"


def tool(api: ApiClient, path: str, name: str, **args: object) -> dict:
    return api.ok("POST", f"{path}/tools/{name}", {**args, "caller": AGENT})["output"]


def write_every_script(api: ApiClient) -> tuple[str, dict[str, str]]:
    """One record and one user message a script, each turn committed: the session and each
    script's record id."""
    session = api.ok("POST", f"{A}/-/sessions", expect=201)["id"]
    records = {}
    for script, (sentence, _) in SENTENCES.items():
        path = turn(api, session)
        added = tool(api, path, "add_memory", summary=sentence, scope="agent")
        records[script] = added["memories"][0]["id"]
        api.ok("POST", f"{path}/events", {"events": [{"role": "user", "text": sentence}]})
        api.ok("POST", f"{path}/commit")
    return session, records


def found_by_words(
    api: ApiClient, session: str, records: dict[str, str], *, history: bool = True
) -> None:
    """Each script's record is the first found by a word or phrase from inside it (the agent's
    search_memory, the records listing), and its message the first said (search_history)."""
    searching = turn(api, session)
    for script, (sentence, words) in SENTENCES.items():
        found = tool(api, searching, "search_memory", query=words)["records"]
        listed = api.ok("GET", f"{A}/-/records", query={"query": words})["records"]
        assert [r["id"] for r in found][:1] == [records[script]], script
        assert [r["id"] for r in listed][:1] == [records[script]], script
        if history:
            said = tool(api, searching, "search_history", query=words)["events"]
            assert said and said[0]["text"].endswith(sentence), script


def test_a_sentence_in_each_script_is_found_by_its_words_before_its_vector(api, store) -> None:
    session, records = write_every_script(api)
    pending = api.ok("GET", f"{A}/-/index")["pendingVectors"]
    assert pending is None or pending >= 2 * len(SENTENCES)  # None: the index cannot tell

    # Without a search index the DynamoDB shape ranks records by words in-process and has no
    # history index: the cloud shape's test below runs its stream indexer and OpenSearch.
    found_by_words(api, session, records, history=type(store).__name__ == "SqliteStore")


def test_in_the_cloud_shape_each_script_is_found_by_its_words_once_indexed(tmp_path) -> None:
    # DynamoDB under moto, the stream indexer, OpenSearch on osmem-server (no k-NN there, so
    # words alone find what is found).
    pytest.importorskip("osmem_server", reason="osmem-server (dev extra) is not installed")
    from cloud_shape import cloud_shape

    with cloud_shape(tmp_path) as cloud:
        cloud.api.ok("PUT", A, MANIFEST, expect=201)
        session, records = write_every_script(cloud.api)
        cloud.index_stream()

        found_by_words(cloud.api, session, records)
