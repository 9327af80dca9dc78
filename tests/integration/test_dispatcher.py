"""The extraction outbox: a turn item whose review became queued on the table's stream starts
that review's execution (again: a no-op when the commit already started it)."""

from __future__ import annotations

import importlib.util
import sys
from datetime import UTC, datetime
from pathlib import Path

import boto3
import pytest
from moto import mock_aws

from agent_memory.adapters.dynamodb.turn_item import TurnItem
from agent_memory.adapters.extraction.dispatch import Dispatcher
from agent_memory.domain.extraction.job import ExtractionJob
from agent_memory.domain.kernel.models import Extraction, ExtractionStatus, Turn, TurnStatus

sys.path.insert(0, str(Path(__file__).parent))
from test_indexer import batch, change  # noqa: E402

pytestmark = pytest.mark.integration
T0 = datetime(2026, 11, 30, tzinfo=UTC)


def turn_image(status: ExtractionStatus | None, turn_id: str = "trn_1", runs: int = 0) -> dict:
    turn = Turn(
        tenant="acme",
        agent_id="teams/web",
        session_id="ses_1",
        id=turn_id,
        sequence=1,
        status=TurnStatus.COMMITTED,
        manifest_version=1,
        created_at=T0,
        extraction=(
            Extraction(status=status, from_turn=0, through=1, queued_at=T0, runs=runs)
            if status
            else None
        ),
    )
    return TurnItem.of(turn).serialize()


class Recorder:
    def __init__(self, failing: set[str] | None = None) -> None:
        self.jobs: list[ExtractionJob] = []
        self.failing = failing or set()

    def start(self, job: ExtractionJob) -> None:
        if job.turn_id in self.failing:
            raise RuntimeError("throttled")
        self.jobs.append(job)


def test_a_commit_that_queued_a_review_starts_it():
    starter = Recorder()
    open_turn = turn_image(None)
    committed = turn_image(ExtractionStatus.QUEUED)
    response = Dispatcher(starter).process(batch(change("MODIFY", new=committed, old=open_turn)))
    assert response == {"batchItemFailures": []}
    assert starter.jobs == [
        ExtractionJob("acme", "teams/web", "ses_1", "trn_1", born=T0.isoformat())
    ]


@pytest.mark.parametrize(
    ("event", "new", "old"),
    [
        ("MODIFY", ExtractionStatus.RUNNING, ExtractionStatus.QUEUED),  # its review began
        ("MODIFY", ExtractionStatus.QUEUED, ExtractionStatus.QUEUED),  # queued before
        ("MODIFY", None, None),  # a commit that queued nothing
        ("INSERT", None, None),  # a turn begun
    ],
)
def test_other_changes_of_a_turn_start_nothing(event, new, old):
    starter = Recorder()
    images = {"new": turn_image(new), "old": turn_image(old) if event == "MODIFY" else None}
    Dispatcher(starter).process(batch(change(event, **images)))
    assert starter.jobs == []


def test_a_start_that_fails_is_reported_for_the_stream_to_retry():
    starter = Recorder(failing={"trn_2"})
    records = [
        change("MODIFY", new=turn_image(ExtractionStatus.QUEUED, t), old=turn_image(None, t))
        for t in ("trn_1", "trn_2")
    ]
    response = Dispatcher(starter).process(batch(*records))
    assert [f["itemIdentifier"] for f in response["batchItemFailures"]] == [
        records[1]["dynamodb"]["SequenceNumber"]
    ]
    assert [j.turn_id for j in starter.jobs] == ["trn_1"]


def test_the_handler_starts_executions_named_after_the_turn(monkeypatch, aws_env):
    with mock_aws():
        sfn = boto3.client("stepfunctions", region_name="us-east-1")
        machine = sfn.create_state_machine(
            name="extraction",
            definition='{"StartAt": "Done", "States": {"Done": {"Type": "Succeed"}}}',
            roleArn="arn:aws:iam::123456789012:role/sfn",
        )["stateMachineArn"]
        monkeypatch.setenv("AGENT_MEMORY_EXTRACTION_STATE_MACHINE_ARN", machine)
        monkeypatch.setenv("POWERTOOLS_SERVICE_NAME", "agent-memory")
        path = Path(__file__).parents[2] / "functions" / "dispatcher" / "app.py"
        spec = importlib.util.spec_from_file_location("dispatcher_app", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        assert isinstance(module.dispatcher, Dispatcher)
        record = change("MODIFY", new=turn_image(ExtractionStatus.QUEUED), old=turn_image(None))

        class Context:
            function_name = "DispatcherFunction"
            memory_limit_in_mb = 256
            invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:d"
            aws_request_id = "req-1"

        assert module.lambda_handler(batch(record), Context()) == {"batchItemFailures": []}
        # Again (a redelivered batch, or the commit's own start first): still one execution.
        module.lambda_handler(batch(record), Context())
        executions = sfn.list_executions(stateMachineArn=machine)["executions"]
        job = ExtractionJob("acme", "teams/web", "ses_1", "trn_1", born=T0.isoformat())
        assert [e["name"] for e in executions] == [job.name]


def test_a_failed_review_queued_again_starts_its_new_run():
    starter = Recorder()
    failed = turn_image(ExtractionStatus.FAILED)
    again = turn_image(ExtractionStatus.QUEUED, runs=1)
    Dispatcher(starter).process(batch(change("MODIFY", new=again, old=failed)))
    assert starter.jobs == [
        ExtractionJob("acme", "teams/web", "ses_1", "trn_1", run=1, born=T0.isoformat())
    ]
