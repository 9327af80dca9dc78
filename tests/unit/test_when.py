"""The time a question names, read relative to when it is asked (history search's boost)."""

from datetime import UTC, datetime

import pytest

from agent_memory.domain.search.ranking import Ranked, favour_windows
from agent_memory.domain.search.when import Window, windows

pytestmark = pytest.mark.unit

# Thursday 9 March 2023, 15:47 UTC: when the question is asked.
NOW = datetime(2023, 3, 9, 15, 47, tzinfo=UTC)


def day(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def spans(query: str, now: datetime = NOW) -> list[tuple[str, str]]:
    return [(w.start.date().isoformat(), w.end.date().isoformat()) for w in windows(query, now)]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        # The latest Saturday before the asking Thursday, a day's slack either side.
        ("I received a piece of jewelry last Saturday from whom?", [("2023-03-03", "2023-03-06")]),
        ("what did I cook on Monday", [("2023-03-05", "2023-03-08")]),
        ("what did i eat yesterday", [("2023-03-08", "2023-03-09")]),
        ("the day before yesterday", [("2023-03-07", "2023-03-08")]),
        ("what did I buy today", [("2023-03-09", "2023-03-10")]),
        # N units ago: half a unit either side (a day either side for days).
        ("the event I went to a week ago", [("2023-02-27", "2023-03-06")]),
        ("May I ask what I did two weeks ago?", [("2023-02-20", "2023-02-27")]),
        ("3 days ago", [("2023-03-05", "2023-03-08")]),
        ("a couple of months ago", [("2022-12-24", "2023-01-23")]),
        ("in the past 3 months", [("2022-12-09", "2023-03-10")]),
        ("last week", [("2023-02-27", "2023-03-06")]),
        ("last weekend", [("2023-03-03", "2023-03-07")]),
        ("this month", [("2023-03-01", "2023-04-01")]),
        ("last month", [("2023-02-01", "2023-03-01")]),
        ("a road trip last year", [("2022-01-01", "2023-01-01")]),
        # Dates, with or without their year (without: the latest one not after now).
        ("on October 13, 2023", [("2023-10-12", "2023-10-15")]),
        ("on 1 February, 2023", [("2023-01-31", "2023-02-03")]),
        ("the 4th of July 2021", [("2021-07-03", "2021-07-06")]),
        ("on May 3", [("2022-05-02", "2022-05-05")]),
        ("on March 1st", [("2023-02-28", "2023-03-03")]),
        ("in October 2023", [("2023-10-01", "2023-11-01")]),
        ("camping in June", [("2022-06-01", "2022-07-01")]),
        ("in 2021", [("2021-01-01", "2022-01-01")]),
        # before / after a date: the month up to it, the month from it.
        ("what did I do before April 10, 2023", [("2023-03-10", "2023-04-09")]),
        ("after June 2022", [("2022-07-01", "2022-07-31")]),
    ],
)
def test_a_named_time_is_the_window_it_implies(query, expected):
    assert spans(query) == expected


@pytest.mark.parametrize(
    "query",
    [
        "What time do I wake up on Tuesdays and Thursdays?",  # a habit, not a day
        "May I ask where I left my keys?",  # the verb
        "How many months ago did I attend the festival?",  # asks for a time, names none
        "the 2 sessions I had with my coach",
        "on February 30, 2023",  # names no day
        "what did I say recently",  # every question about the present could say it
        "the airlines I flew with from earliest to latest before today",  # the whole past
    ],
)
def test_words_that_name_no_time_give_no_window(query):
    assert spans(query) == []


def test_two_times_named_are_two_windows():
    assert spans("last weekend and on May 3") == [
        ("2023-03-03", "2023-03-07"),
        ("2022-05-02", "2022-05-05"),
    ]


def test_a_naive_asking_time_is_read_as_utc():
    assert spans("yesterday", datetime(2023, 3, 9, 12, 0)) == [("2023-03-08", "2023-03-09")]


def test_events_inside_a_window_gain_and_the_rest_keep_their_order():
    window = Window(day("2023-03-03"), day("2023-03-06"), "last saturday")
    ranked = [
        Ranked("a", 1.0, created_at=day("2023-01-01")),
        Ranked("b", 0.9, created_at=day("2023-02-01")),
        Ranked("c", 0.85, created_at=day("2023-03-04")),
        Ranked("d", 0.1, created_at=day("2023-03-05")),
        Ranked("e", 0.5),  # no time: never favoured
    ]
    favoured = favour_windows(ranked, [window], boost=0.25)
    assert [r.id for r in favoured] == ["c", "a", "b", "e", "d"]
    assert favoured[0].score == pytest.approx(0.85 * 1.25)
    # A boost, never a filter: nothing is dropped; with no window nothing moves.
    assert len(favoured) == len(ranked)
    assert favour_windows(ranked, []) is ranked
