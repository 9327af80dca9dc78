"""Fact keys (issue #16 item 6) in the history benchmarks: `--fact-keys none|rule|observations`.

A review's proposed facts become extra keys of the messages they cite (the service's
domain/history/keys.py), so a history benchmark measures them only if its agents run post-turn
reviews, and only once every review (and, with embeddings, every vector) is done:

- `none`: memory read_only, so no review runs and no message has keys (the figures as before
  the keys; the LoCoMo history agent used to run reviews beside the load, which wrote records
  only, and now would key messages in a race with the questions).
- `rule`: reviews after every turn with the server's configured model (RuleBasedModel offline).
- `observations` (LoCoMo only): the reviews ask observations_stub.py, which proposes LoCoMo's
  own observation facts: an upper bound of a model-backed review.
"""

from __future__ import annotations

import json
import sqlite3
import statistics
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from agent_memory.client import Client

CHOICES = ("none", "rule", "observations")
UNFINISHED = ("queued", "running")
TURNS_PAGE = 200  # the API's largest page


def memory(fact_keys: str, **settings: Any) -> dict[str, Any]:
    """The manifest's harness.memory: enabled; reviewed every turn unless `none` (read_only:
    nothing is reviewed). `settings` are the benchmark's own (search, ...)."""
    if fact_keys == "none":
        return {"enabled": True, "access": "read_only", **settings}
    return {"enabled": True, "extraction": {"every": "turn"}, **settings}


def history(fact_keys: str, **settings: Any) -> dict[str, Any]:
    """The manifest's harness.history: `settings`, and the keys asked for explicitly unless
    `none` (the service keys no message by default when the rule-based model reviews)."""
    return {**settings, "fact_keys": True} if fact_keys != "none" else dict(settings)


def session_reviews(client: Client, agent_id: str, session_id: str) -> list[dict[str, Any]]:
    """The review of each turn of the session that started one (a turn's `extraction`)."""
    reviews: list[dict[str, Any]] = []
    cursor = None
    while True:
        query: dict[str, Any] = {"limit": TURNS_PAGE}
        if cursor is not None:
            query["cursor"] = cursor
        page = client.list_turns(agent_id, session_id, **query)
        reviews += [t["extraction"] for t in page["turns"] if t.get("extraction")]
        cursor = page.get("next")
        if cursor is None:
            return reviews


def wait_for_reviews(
    client: Client, agent_id: str, session_ids: Iterable[str], timeout: float = 3600.0
) -> tuple[list[dict[str, Any]], float]:
    """Every review the sessions' turns started, once none is queued or running, and the
    seconds waited. Every turn is looked at: the worker's queue is bounded, and a review that
    found no room runs after later ones, so the last turn's review ending says nothing."""
    sessions = list(session_ids)
    started = time.perf_counter()
    while True:
        reviews = [r for s in sessions for r in session_reviews(client, agent_id, s)]
        waiting = sum(r["status"] in UNFINISHED for r in reviews)
        if not waiting:
            return reviews, time.perf_counter() - started
        if time.perf_counter() - started > timeout:
            raise RuntimeError(f"{agent_id}: {waiting} reviews still unfinished after {timeout} s")
        time.sleep(0.5)


def key_figures(database: Path | None, agent_id: str) -> dict[str, int | None]:
    """The agent's key documents (`<event>.k` in the embedded index) and the facts they hold
    (the turns' fact_keys), read from the embedded server's SQLite file (None without one)."""
    if database is None:
        return {"key_documents": None, "keys": None}
    conn = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    try:
        documents = conn.execute(
            "SELECT count(*) FROM search_docs WHERE agent_id = ? AND kind = 'event'"
            " AND doc_id LIKE '%.k'",
            (agent_id,),
        ).fetchone()[0]
        rows = conn.execute(
            "SELECT fact_keys FROM turns WHERE agent_id = ? AND fact_keys IS NOT NULL",
            (agent_id,),
        ).fetchall()
    finally:
        conn.close()
    keys = sum(len(event["keys"]) for (raw,) in rows for event in json.loads(raw))
    return {"key_documents": int(documents), "keys": keys}


def summary(reviews: list[dict[str, Any]], figures: list[dict[str, int | None]]) -> dict[str, Any]:
    """The meta block's account of the keys: reviews run, how they ended, facts proposed, and
    the key documents and facts the agents ended with."""
    done = [r for r in reviews if r["status"] == "done"]

    def total(name: str) -> int | None:
        values = [f[name] for f in figures]
        return None if any(v is None for v in values) else sum(v or 0 for v in values)

    return {
        "reviews": len(reviews),
        "done": len(done),
        "failed": sum(r["status"] == "failed" for r in reviews),
        "errors": sorted({r.get("error") or "" for r in reviews if r["status"] == "failed"})[:5],
        "candidates": sum(r.get("candidates") or 0 for r in done),
        "model_calls": sum(r.get("modelCalls") or 0 for r in done),
        "candidates_per_review": round(statistics.fmean(r.get("candidates") or 0 for r in done), 2)
        if done
        else None,
        "key_documents": total("key_documents"),
        "keys": total("keys"),
    }
