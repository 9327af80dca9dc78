"""Fit history search's learned fusion (domain/search/fusion.py) on the two dev sets, report it
with and without the model and cross-validated, and write its coefficients.

    # 1. the training rows: each benchmark run once, its server tracing every search's candidates
    .venv/bin/python benchmarks/train_fusion.py collect --set locomo \
        --embedding-cache /tmp/rd/emb.sqlite3 --work /tmp/fusion
    .venv/bin/python benchmarks/train_fusion.py collect --set lme \
        --embedding-cache /tmp/lme/emb.sqlite3 --work /tmp/fusion
    # 2. fit, report, and (with --write) write domain/search/fusion_weights.py
    .venv/bin/python benchmarks/train_fusion.py fit --work /tmp/fusion [--write]

`collect` runs benchmarks/locomo.py (--target history) or benchmarks/longmemeval.py (--mode
hybrid) as they are, their embedded server started with AGENT_MEMORY_SEARCH_FUSION=learned and
FUSION_TRACE (fusion_trace.py): each search writes its candidates' features and events, and keeps
the hand-set order. So the rows are what the product's own ranking computes, read by the same
`features` function the learned fusion scores with.

`fit` labels each candidate from the gold evidence (LoCoMo: the turns a question cites, by the
`dia_id` each event carries; LongMemEval: the turns marked has_answer, by where each message was
loaded), and fits a pairwise logistic model: for each question, every gold candidate against every
other candidate, a question's pairs weighing one question and each dev set half the total; L2,
Newton's method (deterministic: the same rows give the same coefficients). It orders each
question's candidates by the hand-set score and by the model, one result an event as the search
returns them, and scores both with the data's own scorers (figures as the benchmarks report
them), on the training rows and in 5-fold cross-validation (LoCoMo a conversation a fold,
LongMemEval every fifth question), so overfitting shows. Only the two dev sets in
../shared/data/ are read.
"""

from __future__ import annotations

import argparse
import datetime
import gzip
import hashlib
import importlib.util
import json
import os
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "layers" / "core"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from agent_memory.domain.search.fusion import FEATURES  # noqa: E402

DATA = ROOT.parent / "shared" / "data"
LOCOMO = DATA / "locomo_dev.json"
LME = DATA / "longmemeval_s_dev.json.gz"
WEIGHTS = ROOT / "layers" / "core" / "agent_memory" / "domain" / "search" / "fusion_weights.py"
L2 = 1.0  # on standardised features, against a total pair weight of 2 (one a dev set) x 1000
FOLDS = 5
LOCOMO_LIMIT = 10  # what the LoCoMo benchmark asks for and scores
LME_LIMIT = 50  # what the LongMemEval benchmark asks for; its scorer reads the top 10


def _module(path: Path, name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# -- collecting ----------------------------------------------------------------------------------


def collect(
    which: str, cache: Path, work: Path, links: bool = False, data: Path | None = None
) -> None:
    """One benchmark run whose server traces every search's candidates to WORK/<set>.trace.jsonl
    (<set>-links with entity links on: harness.history.entity_links)."""
    work.mkdir(parents=True, exist_ok=True)
    name = f"{which}-links" if links else which
    trace = work / f"{name}.trace.jsonl"
    trace.unlink(missing_ok=True)
    env = {**os.environ, "FUSION_TRACE": str(trace), "AGENT_MEMORY_SEARCH_FUSION": "learned"}
    here = Path(__file__).resolve().parent
    if which == "locomo":
        command = [sys.executable, str(here / "locomo.py"), "--target", "history"]
    else:
        command = [sys.executable, str(here / "longmemeval.py"), "--mode", "hybrid"]
    command += ["--embedding-cache", str(cache), "--out", str(work / f"{name}.fixed.json")]
    if links:
        command.append("--entity-links")
    if data is not None:
        command += ["--data", str(data)]
    subprocess.run(command, check=True, env=env)


def read_trace(path: Path) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """(agent, query) -> the candidates of its last search (a search that looks deeper ranks
    again; LongMemEval asks each question twice, the same way)."""
    out: dict[tuple[str, str], list[dict[str, Any]]] = {}
    with path.open() as lines:
        for line in lines:
            row = json.loads(line)
            out[(row["agent"], row["query"])] = row["candidates"]
    return out


# -- questions: candidates, labels, scoring -------------------------------------------------------


class Question:
    """One dev question: its candidates' features, which candidates are gold, each candidate's
    result as the scorer reads it (None: not one the search may return), and how to score a list."""

    def __init__(
        self,
        dataset: str,
        fold: int,
        x: np.ndarray,
        gold: np.ndarray,
        items: list[tuple[Any, dict[str, Any]] | None],
        score: Any,
        category: str,
        limit: int,
    ) -> None:
        self.dataset, self.fold, self.x, self.gold = dataset, fold, x, gold
        self.items, self.score, self.category, self.limit = items, score, category, limit

    def figures(self, scores: np.ndarray) -> dict[str, float]:
        """The scorer's figures for the candidates ordered by `scores` (ties: the hand-set
        order), one result an event, the first `limit`."""
        order = sorted(range(len(scores)), key=lambda i: -scores[i])
        seen: set[Any] = set()
        results = []
        for i in order:
            item = self.items[i]
            if item is None or item[0] in seen:
                continue
            seen.add(item[0])
            results.append(item[1])
            if len(results) >= self.limit:
                break
        return dict(self.score(results))


def locomo_questions(work: Path, name: str = "locomo") -> list[Question]:
    scorer = _module(DATA / "locomo_retrieval.py", "locomo_retrieval")
    trace = read_trace(work / f"{name}.trace.jsonl")
    out = []
    for fold, conv in enumerate(scorer.load_locomo(str(LOCOMO))):
        for q in conv["qa"]:
            if q["category"] == 5 or not q["evidence"]:
                continue
            candidates = trace.get((f"locomo/{conv['sample_id']}", q["question"]))
            if candidates is None:
                raise SystemExit(f"{conv['sample_id']}: no search traced for {q['question']!r}")
            evidence = set(q["evidence"])
            items: list[tuple[Any, dict[str, Any]] | None] = []
            for c in candidates:
                at = c["at"]
                dia_id = at[3] if at is not None else None
                items.append((dia_id, {"dia_id": dia_id}) if dia_id else None)
            out.append(
                Question(
                    "locomo",
                    fold,
                    np.array([c["x"] for c in candidates], dtype=float),
                    np.array([it is not None and it[0] in evidence for it in items]),
                    items,
                    lambda results, e=q["evidence"]: scorer.score_question(results, e),
                    scorer.CATEGORY_NAMES[q["category"]],
                    LOCOMO_LIMIT,
                )
            )
    return out


def lme_questions(work: Path, name: str = "lme") -> list[Question]:
    scorer = _module(DATA / "lme_retrieval.py", "lme_retrieval")
    bench = _module(Path(__file__).resolve().with_name("longmemeval.py"), "longmemeval")
    trace = read_trace(work / f"{name}.trace.jsonl")
    with gzip.open(LME, "rt") as f:
        questions = [q for q in json.load(f) if not q["question_id"].endswith("_abs")]
    out = []
    for n, q in enumerate(questions):
        agent = f"lme/{q['question_id']}"
        candidates = trace.get((agent, q["question"]))
        if candidates is None:
            continue  # a run over part of the set (collect --data): fitted on what it asked
        _, where = bench.ingest_messages(agent, q, "sessions")
        gold = scorer.gold_turns(q)
        items: list[tuple[Any, dict[str, Any]] | None] = []
        for c in candidates:
            found = where.get(tuple(c["at"][:3])) if c["at"] is not None else None
            items.append(None if found is None else ((found["session_id"], found["turn"]), found))
        out.append(
            Question(
                "lme",
                n % FOLDS,
                np.array([c["x"] for c in candidates], dtype=float),
                np.array([it is not None and it[0] in gold for it in items]),
                items,
                lambda results, q=q: scorer.metrics(q, results),
                q["question_type"],
                LME_LIMIT,
            )
        )
    return out


# -- the model -----------------------------------------------------------------------------------


def pairs(questions: list[Question], balance: str = "sets") -> tuple[np.ndarray, np.ndarray]:
    """Every gold candidate's features minus every other (returnable) candidate's. A set's
    questions weigh 1000 in all, so each set weighs the same (`balance` "sets"); or each
    question weighs the same, 1000 x sets / questions in all ("questions"). A question's pairs
    share its weight."""
    per_set: dict[str, int] = defaultdict(int)
    for q in questions:
        if q.gold.any():
            per_set[q.dataset] += 1
    everyone = sum(per_set.values())
    diffs, weights = [], []
    for q in questions:
        good = q.x[q.gold]
        bad = q.x[~q.gold & np.array([it is not None for it in q.items])]
        if len(good) == 0 or len(bad) == 0:
            continue
        d = (good[:, None, :] - bad[None, :, :]).reshape(-1, q.x.shape[1])
        each = (
            1000.0 / per_set[q.dataset] if balance == "sets" else 1000.0 * len(per_set) / everyone
        )
        diffs.append(d)
        weights.append(np.full(len(d), each / len(d)))
    return np.concatenate(diffs), np.concatenate(weights)


def fit(questions: list[Question], balance: str = "sets") -> np.ndarray:
    """Raw-feature coefficients of the pairwise logistic model (a feature that never varies
    weighs nothing)."""
    rows = np.concatenate([q.x for q in questions])
    scale = rows.std(axis=0)
    live = scale > 1e-9
    scale = np.where(live, scale, 1.0)
    d, a = pairs(questions, balance)
    z = d / scale
    w = np.zeros(z.shape[1])
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(np.clip(z @ w, -35, 35)))  # P(the pair is ordered wrong)
        grad = -(z.T @ (a * p)) + L2 * w
        hess = (z * (a * p * (1 - p))[:, None]).T @ z + L2 * np.eye(len(w))
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-10:
            break
    return np.where(live, w / scale, 0.0)


# -- reporting -------------------------------------------------------------------------------------

LOCOMO_FIGURES = ("recall@10", "ndcg@10")
LME_FIGURES = ("S-any@5", "S-all@5", "S-nDCG@10", "T-rec@1", "T-rec@5", "T-rec@10")


def table(questions: list[Question], scores: list[np.ndarray]) -> dict[str, dict[str, float]]:
    """Mean figures per set and category ("<set>" overall, "<set>/<category>")."""
    sums: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    counts: dict[str, int] = defaultdict(int)
    for q, s in zip(questions, scores, strict=True):
        got = q.figures(s)
        if q.dataset == "locomo":
            got = {"recall@10": got["turn_recall@10"], "ndcg@10": got["turn_ndcg@10"]}
        else:
            # Turn recall only where a question marks its turns (the scorer's mean likewise).
            got = {k: got[k] for k in LME_FIGURES if k in got}
        for key in (q.dataset, f"{q.dataset}/{q.category}"):
            counts[key] += 1
            for name, value in got.items():
                sums[key][name].append(value)
    return {
        key: {
            "n": counts[key],
            **{k: round(sum(v) / len(v), 3) for k, v in sorted(sums[key].items())},
        }
        for key in sorted(sums)
    }


def report(questions: list[Question], weights: np.ndarray, balance: str = "sets") -> dict[str, Any]:
    fixed = [q.x[:, 0] for q in questions]
    learned = [q.x @ weights for q in questions]
    crossed: list[np.ndarray] = [np.zeros(0)] * len(questions)
    for fold in range(FOLDS):
        held = [i for i, q in enumerate(questions) if q.fold == fold]
        w = fit([q for q in questions if q.fold != fold], balance)
        for i in held:
            crossed[i] = questions[i].x @ w
    return {
        "fixed": table(questions, fixed),
        "learned": table(questions, learned),
        "cross_validated": table(questions, crossed),
    }


def print_report(figures: dict[str, Any]) -> None:
    keys = list(figures["fixed"])
    for key in keys:
        names = [k for k in figures["fixed"][key] if k != "n"]
        names = [n for n in (*LOCOMO_FIGURES, *LME_FIGURES) if n in names]
        print(f"\n{key} (n={figures['fixed'][key]['n']})")
        print(f"  {'':16}" + "".join(f"{n:>11}" for n in names))
        for run in ("fixed", "learned", "cross_validated"):
            row = figures[run][key]
            print(f"  {run:16}" + "".join(f"{row[n]:>11.3f}" for n in names))


def write_weights(weights: np.ndarray, command: str, questions: list[Question]) -> None:
    digests = {p.name: hashlib.sha256(p.read_bytes()).hexdigest()[:16] for p in (LOCOMO, LME)}
    lines = [
        '"""The learned fusion\'s coefficients (fusion.py), written by benchmarks/train_fusion.py:',
        "do not edit by hand, run the script again.",
        "",
        f"Command: {command}",
        "Questions fitted on: "
        + ", ".join(f"{k} {v}" for k, v in sorted(Counter(q.dataset for q in questions).items())),
        "Data (sha256 prefixes): " + ", ".join(f"{k} {v}" for k, v in digests.items()),
        f"Date: {datetime.datetime.now(datetime.UTC):%Y-%m-%d}",
        '"""',
        "",
        "COEFFICIENTS = {",
        *(f'    "{name}": {w:.6f},' for name, w in zip(FEATURES, weights, strict=True)),
        "}",
        "",
    ]
    WEIGHTS.write_text("\n".join(lines))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect", help="a benchmark run tracing its searches' candidates")
    c.add_argument("--set", choices=["locomo", "lme"], required=True)
    c.add_argument("--embedding-cache", type=Path, required=True)
    c.add_argument("--work", type=Path, default=Path("/tmp/fusion"))
    c.add_argument("--entity-links", action="store_true", help="harness.history.entity_links on")
    c.add_argument("--data", type=Path, help="the benchmark's --data (default: the dev set)")
    f = sub.add_parser("fit", help="fit, report, and with --write write the coefficients")
    f.add_argument("--work", type=Path, default=Path("/tmp/fusion"))
    f.add_argument(
        "--sets",
        default="locomo,lme",
        help="the traced sets to fit on: locomo or locomo-links, lme or lme-links",
    )
    f.add_argument(
        "--balance",
        choices=["sets", "questions"],
        default="sets",
        help="sets: each dev set weighs half; questions: each question the same",
    )
    f.add_argument("--write", action="store_true", help="write domain/search/fusion_weights.py")
    args = parser.parse_args(argv)
    if args.command == "collect":
        collect(args.set, args.embedding_cache, args.work, args.entity_links, args.data)
        return 0
    questions = []
    for name in args.sets.split(","):
        read = locomo_questions if name.startswith("locomo") else lme_questions
        questions += read(args.work, name)
    weights = fit(questions, args.balance)
    figures = report(questions, weights, args.balance)
    figures["coefficients"] = dict(zip(FEATURES, weights.round(6).tolist(), strict=True))
    print("coefficients: " + json.dumps(figures["coefficients"]))
    print_report(figures)
    (args.work / "fit.json").write_text(json.dumps(figures, indent=1))
    if args.write:
        write_weights(
            weights,
            f"benchmarks/train_fusion.py fit --sets {args.sets} --balance {args.balance}",
            questions,
        )
        print(f"written: {WEIGHTS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
