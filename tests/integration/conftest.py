import pytest

from agent_memory.api.app import Api
from agent_memory.bootstrap import build_services
from agent_memory.settings import Settings
from apiclient import ApiClient, drained


@pytest.fixture
def aws_env(monkeypatch):
    for name, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_SECURITY_TOKEN": "testing",
        "AWS_SESSION_TOKEN": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_REGION": "us-east-1",
    }.items():
        monkeypatch.setenv(name, value)


@pytest.fixture
def dynamo_table(aws_env):
    from moto import mock_aws

    from agent_memory.adapters.dynamodb import DynamoStore

    with mock_aws():
        store = DynamoStore("agent-memory-test", "us-east-1")
        store.create_table()
        yield store


@pytest.fixture(params=["sqlite", "dynamodb"])
def store(request, tmp_path):
    if request.param == "sqlite":
        from agent_memory.adapters.sqlite import SqliteStore

        sqlite_store = SqliteStore(tmp_path / "db.sqlite3")
        yield sqlite_store
        sqlite_store.close()
    else:
        yield request.getfixturevalue("dynamo_table")


@pytest.fixture(scope="session")
def embedder():
    """One offline model for the whole run: loading it takes a few hundred milliseconds."""
    from agent_memory.adapters.embeddings.local import LocalEmbedder

    return LocalEmbedder()


@pytest.fixture
def services(store, tmp_path, embedder):
    return build_services(Settings(data_dir=tmp_path), store=store, embedder=embedder)


@pytest.fixture
def api(services) -> ApiClient:
    return ApiClient(drained(Api(services).handle, services))


@pytest.fixture
def embedded(store):
    """The store, on the embedded shape only: there the search index lives in the store's own
    database. (The cloud shape indexes through the stream and OpenSearch: tests/integration/
    test_indexer.py and test_opensearch_index.py.)"""
    if type(store).__name__ != "SqliteStore":
        pytest.skip("the cloud shape indexes through the stream and OpenSearch")
    return store
