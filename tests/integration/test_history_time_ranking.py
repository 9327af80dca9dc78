"""History search favours what was said within the time a query names (`last Saturday`, `in
February 2023`), read relative to when the question is asked: a boost, never a filter."""

import pytest

pytestmark = pytest.mark.integration

A = "/v1/agents/diary/bot"
AGENT = {"role": "agent"}
SAID = "I got a silver necklace from my sister"


@pytest.fixture
def diary(api):
    """Two sessions saying the same words: one on Saturday 4 March 2023, one on Wednesday the
    8th. Equal scores go to the newer, so without a named time the 8th comes first."""
    history = {"index": "messages", "search": "agent"}
    api.ok("PUT", A, {"harness": {"memory": {"enabled": True}, "history": history}}, expect=201)
    for sid, time in (("sat", "2023-03-04T18:00:00Z"), ("wed", "2023-03-08T09:00:00Z")):
        api.ok("POST", f"{A}/-/sessions", {"id": sid}, expect=201)
        turn = api.ok("POST", f"{A}/-/sessions/{sid}/turns", {}, expect=201)["id"]
        path = f"{A}/-/sessions/{sid}/turns/{turn}"
        api.ok("POST", f"{path}/events", {"events": [{"role": "user", "text": SAID, "time": time}]})
        api.ok("POST", f"{path}/commit")
    return api


def ask(api, question, asked_at):
    """search_history from a turn whose user message (the question) was said at `asked_at`."""
    sid = api.ok("POST", f"{A}/-/sessions", None, expect=201)["id"]
    turn = api.ok("POST", f"{A}/-/sessions/{sid}/turns", {}, expect=201)["id"]
    path = f"{A}/-/sessions/{sid}/turns/{turn}"
    event = {"role": "user", "text": question, "time": asked_at}
    api.ok("POST", f"{path}/events", {"events": [event]})
    status, body = api.call(
        "POST", f"{path}/tools/search_history", {"query": question, "caller": AGENT, "limit": 5}
    )
    assert status == 200, body
    return [e["session"] for e in body["output"]["events"]]


def test_last_saturday_favours_what_was_said_that_saturday(diary, embedded):
    asked_thursday = "2023-03-09T15:00:00Z"
    assert ask(diary, "the silver necklace", asked_thursday) == ["wed", "sat"]
    assert ask(diary, "the silver necklace I got last Saturday", asked_thursday) == ["sat", "wed"]


def test_the_named_time_is_read_from_when_the_question_is_asked(diary, embedded):
    # Asked in June, last Saturday is 27 May: neither message was said then, nothing moves.
    assert ask(diary, "the silver necklace I got last Saturday", "2023-06-01T12:00:00Z") == [
        "wed",
        "sat",
    ]


def test_the_management_search_reads_a_named_date(diary, embedded):
    found = diary.ok("GET", f"{A}/-/history", query="silver necklace on March 4, 2023")
    assert [e["session"] for e in found["events"]] == ["sat", "wed"]
    # A boost, never a filter: a date neither was said on keeps both, newer first.
    found = diary.ok("GET", f"{A}/-/history", query="silver necklace on January 2, 2023")
    assert [e["session"] for e in found["events"]] == ["wed", "sat"]
