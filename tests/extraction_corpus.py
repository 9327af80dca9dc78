"""A corpus of short conversations for the post-turn review, with the decisions a careful reader
would make: corrections, retractions, restatements, unrelated facts, decisions, and look-alikes
that must not trigger a change. Each conversation gives the records that exist (ids r1, r2, ...),
what the user says, and the expected decisions: add, replace(target), delete(target), skip.
An expected add or replace may name the scope it must be written in (the agent writes both):
agent for what holds beyond the conversation, session for what the user ties to it (group
"scope").

`optional` lists decisions that are neither right nor wrong (an opinion kept as a fact, say):
they count for nothing. Anything else the model decides counts against its precision, and each
expected decision it does not make counts against its recall.

Read by tests/unit/test_extraction_corpus.py (the model alone), by
tests/integration/test_extraction_corpus.py (the extraction service on SQLite) and by
benchmarks/extraction_corpus.py (prints the table of benchmarks/RESULTS.md).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

ACTIONS = ("add", "replace", "delete", "skip")
# Shapes the rules once wrote: "decided to the tag format ...", "User've", "User'm".
GARBLED = re.compile(r"decided to (?:the|a|an|our|my)\b|\bUser'(?:ve|m|d|ll)\b|\bto to\b", re.I)


@dataclass(frozen=True)
class Expected:
    action: str
    target: str | None = None
    like: str | None = None  # the summary written must contain this (add, replace)
    scope: str | None = None  # the scope it must be written in (add, replace); None: either

    def matches(
        self, action: str, target: str | None, summary: str, targets: bool, scope: str | None
    ) -> bool:
        if action != self.action:
            return False
        if targets and None not in (self.target, target) and target != self.target:
            return False
        if self.scope is not None and scope != self.scope:
            return False
        return self.like is None or self.like.lower() in summary.lower()


def add(like: str | None = None, scope: str | None = None) -> Expected:
    return Expected("add", None, like, scope)


def replace(target: str, like: str | None = None, scope: str | None = None) -> Expected:
    return Expected("replace", target, like, scope)


def delete(target: str) -> Expected:
    return Expected("delete", target)


def skip(target: str | None = None) -> Expected:
    return Expected("skip", target)


ANY_ADD = add()
BOTH = ["session", "agent"]


@dataclass(frozen=True)
class Case:
    name: str
    group: str
    existing: dict[str, str]  # id -> summary, written before the conversation
    said: list[str]  # the user's messages, one turn
    expect: list[Expected]
    optional: list[Expected] = field(default_factory=list)
    same_turn: bool = False  # the agent wrote `existing` in the turn under review


LISBON = {"r1": "User lives in Lisbon"}
VIM = {"r1": "User uses Vim"}

CASES = [
    # -- corrections: the new fact replaces the one it corrects ----------------------------------
    Case("moved, actually", "correction", LISBON, ["Actually, I live in Porto now."],
         [replace("r1", "Porto")]),
    Case("correction: employer", "correction", {"r1": "User works at Acme"},
         ["Correction: I work at Globex."], [replace("r1", "Globex")]),
    Case("favourite colour", "correction", {"r1": "User's favourite colour is blue"},
         ["Actually my favourite colour is green."], [replace("r1", "green")]),
    Case("switched editor", "correction", {"r1": "User uses Vim", "r2": "User lives in Lisbon"},
         ["I switched to Emacs last month."], [replace("r1", "Emacs")]),
    Case("moved city", "correction", {"r1": "User lives in Lisbon", "r2": "User works at Acme"},
         ["I moved to Berlin in May."], [replace("r1", "Berlin")]),
    Case("dog's name, actually", "correction", {"r1": "User's dog's name is Rex"},
         ["Sorry, my dog's name is actually Max."], [replace("r1", "Max")]),
    Case("job, not a nurse", "correction", {"r1": "User is a nurse"},
         ["Actually I'm a teacher now, not a nurse."], [replace("r1", "teacher")]),
    Case("prefers coffee these days", "correction", {"r1": "User prefers tea"},
         ["These days I prefer coffee."], [replace("r1", "coffee")]),
    Case("three cats", "correction", {"r1": "User has two cats"},
         ["Actually, I have three cats."], [replace("r1", "three cats")]),
    Case("release day", "correction",
         {"r1": "The user and the assistant decided to release on Fridays"},
         ["Actually, let's release on Thursdays instead."], [replace("r1", "Thursdays")]),
    Case("speaker moved", "correction", {"r1": "Caroline lives in Boston"},
         ["Caroline: Actually I live in Denver now."], [replace("r1", "Denver")]),
    Case("manager, no", "correction", {"r1": "User's manager is Dana"},
         ["No, my manager is Priya, Dana left."], [replace("r1", "Priya")]),
    Case("used to live", "correction", LISBON,
         ["I used to live in Lisbon but now I live in Porto."], [replace("r1", "Porto")]),
    Case("allergy", "correction", {"r1": "User is allergic to peanuts"},
         ["Correction: I'm allergic to shellfish, not peanuts."], [replace("r1", "shellfish")]),
    Case("database instead", "correction",
         {"r1": "The user and the assistant decided to use MySQL for the project"},
         ["Actually, let's use Postgres instead."], [replace("r1", "Postgres")]),
    Case("sold the car", "correction", {"r1": "User drives a Honda Civic"},
         ["I sold the Civic, I drive a Tesla now."], [replace("r1", "Tesla")],
         optional=[ANY_ADD]),
    # -- retractions: the record is deleted ----------------------------------------------------
    Case("vim anymore", "retraction", VIM, ["I don't use Vim anymore."], [delete("r1")]),
    Case("stopped tennis", "retraction", {"r1": "User plays tennis on Sundays"},
         ["I stopped playing tennis."], [delete("r1")]),
    Case("not vegetarian anymore", "retraction", {"r1": "User is vegetarian"},
         ["I'm not vegetarian anymore."], [delete("r1")]),
    Case("no longer at Acme", "retraction", {"r1": "User works at Acme", "r2": "User uses Vim"},
         ["I no longer work at Acme."], [delete("r1")]),
    Case("no cat anymore", "retraction", {"r1": "User has a cat named Tom"},
         ["Sadly I don't have a cat anymore."], [delete("r1")]),
    Case("forget vim", "retraction", {"r1": "User lives in Lisbon", "r2": "User uses Vim"},
         ["Please forget that I use Vim."], [delete("r2")]),
    Case("never liked jazz", "retraction", {"r1": "User likes jazz"},
         ["Actually, I never liked jazz."], [delete("r1")]),
    Case("quit volunteering", "retraction", {"r1": "User volunteers at the animal shelter"},
         ["I quit volunteering at the shelter last month."], [delete("r1")]),
    Case("gave up Spanish", "retraction", {"r1": "User is learning Spanish"},
         ["I gave up on Spanish."], [delete("r1")]),
    Case("coffee any more", "retraction", {"r1": "User drinks coffee every morning"},
         ["I don't drink coffee any more."], [delete("r1")]),
    Case("speaker's class", "retraction", {"r1": "Melanie runs a pottery class"},
         ["Melanie: I don't run the pottery class anymore."], [delete("r1")]),
    Case("used to play", "retraction", {"r1": "User plays the violin"},
         ["I used to play the violin."], [delete("r1")]),
    # -- restatements: nothing new, skipped ----------------------------------------------------
    Case("same words", "restatement", LISBON, ["I live in Lisbon."], [skip("r1")]),
    Case("still", "restatement", LISBON, ["Actually, I still live in Lisbon."], [skip("r1")]),
    Case("fuller record", "restatement", {"r1": "The user lives in Lisbon, Portugal"},
         ["I live in Lisbon."], [skip("r1")]),
    Case("yeah, tea", "restatement", {"r1": "User prefers tea over coffee"},
         ["Yeah, I prefer tea over coffee."], [skip("r1")]),
    Case("employer with role", "restatement", {"r1": "User works at Acme as an engineer"},
         ["I work at Acme."], [skip("r1")]),
    Case("as I said", "restatement", {"r1": "User is a nurse"}, ["As I said, I'm a nurse."],
         [skip("r1")]),
    Case("two kids", "restatement", {"r1": "User has two kids"}, ["I have two kids."],
         [skip("r1")]),
    Case("one new, one known", "restatement", LISBON, ["I live in Lisbon. I work as a nurse."],
         [skip("r1"), add("nurse")]),
    Case("agent wrote it this turn", "restatement", {"r1": "The user lives in Porto, Portugal"},
         ["I live in Porto."], [skip("r1")], same_turn=True),
    Case("agent wrote the preference", "restatement",
         {"r1": "User prefers dark mode in the editor"}, ["I prefer dark mode."], [skip("r1")],
         same_turn=True),
    Case("agent wrote the decision", "restatement",
         {"r1": "The user and the assistant decided to use Postgres for the project"},
         ["Let's use Postgres for the project."], [skip("r1")], same_turn=True),
    # -- unrelated facts: added, nothing replaced ----------------------------------------------
    Case("new job fact", "unrelated", LISBON, ["I work as a nurse."], [add("nurse")]),
    Case("second editor", "unrelated", VIM, ["I also use Emacs for org-mode."], [add("Emacs")]),
    Case("two facts", "unrelated", {}, ["I prefer tea over coffee. I have a dog named Rex."],
         [add("tea over coffee"), add("dog named Rex")]),
    Case("sister's city", "unrelated", {"r1": "User's sister lives in Lisbon"},
         ["I live in Porto."], [add("Porto")]),
    Case("my sister moved", "unrelated", LISBON, ["My sister lives in Porto now."],
         [add("sister lives in Porto")]),
    Case("piano", "unrelated", {"r1": "User works at Acme"}, ["I started learning the piano."],
         [add("piano")]),
    Case("blues too", "unrelated", {"r1": "User likes jazz"}, ["I like blues too."],
         [add("blues")]),
    Case("same city as speaker", "unrelated", {"r1": "Caroline lives in Boston"},
         ["Melanie: I live in Boston too."], [add("Melanie lives in Boston")]),
    # -- look-alikes that must not trigger a change --------------------------------------------
    Case("don't think vim is bad", "look-alike", VIM, ["I don't think Vim is bad."], [],
         optional=[ANY_ADD]),
    Case("that's right", "look-alike", LISBON, ["Actually, that's right."], []),
    Case("colleague's vim", "look-alike", VIM, ["My colleague doesn't use Vim anymore."], [],
         optional=[ANY_ADD]),
    Case("away this week", "look-alike", LISBON,
         ["I'm not in Lisbon this week, I'm at a conference in Madrid."], [],
         optional=[ANY_ADD]),
    Case("no problem", "look-alike", VIM, ["No problem, I use it every day."], [],
         optional=[ANY_ADD, skip("r1")]),
    Case("no, it's fine", "look-alike", LISBON, ["No, it's fine, thanks."], []),
    Case("not at work", "look-alike", VIM, ["I don't use Vim at work."], [], optional=[ANY_ADD]),
    Case("how to quit vim", "look-alike", VIM, ["Actually, could you show me how to quit Vim?"],
         []),
    Case("Lisbon in spring", "look-alike", LISBON, ["Actually, Lisbon is lovely in spring."], [],
         optional=[ANY_ADD]),
    Case("stopped by", "look-alike", {"r1": "User plays tennis"},
         ["I stopped by the tennis club yesterday."], [], optional=[ANY_ADD]),
    Case("neighbour's cat", "look-alike", {"r1": "User has a cat"},
         ["Actually, my neighbour has a cat too."], [], optional=[ANY_ADD]),
    Case("that's all", "look-alike", {"r1": "User likes jazz"}, ["Thanks, that's all for now."],
         []),
    Case("never been to Rome", "look-alike", LISBON, ["I've never been to Rome."], [],
         optional=[ANY_ADD]),
    # -- decisions and wording: never garbled --------------------------------------------------
    Case("tag format", "wording", {}, ["We decided the tag format is vX.Y.Z."],
         [add("decided that the tag format is vX.Y.Z")]),
    Case("let's", "wording", {}, ["Let's use Postgres for the project."],
         [add("decided to use Postgres for the project")]),
    Case("agreed", "wording", {}, ["We agreed the release goes out on Monday."],
         [add("that the release goes out on Monday")]),
    Case("I've inside", "wording", {}, ["My friend said I've changed a lot."],
         [add("has changed a lot")]),
    # -- scope: what holds beyond the conversation is the agent's, the rest the session's ------
    Case("preference is lasting", "scope", {}, ["I prefer dark mode in every tool."],
         [add("dark mode", scope="agent")]),
    Case("job is lasting", "scope", {}, ["I work at Acme Corp as a release engineer."],
         [add("Acme Corp", scope="agent")]),
    Case("convention is lasting", "scope", {}, ["We decided the tag format is vX.Y.Z."],
         [add("tag format", scope="agent")]),
    Case("allergy is lasting", "scope", {}, ["I'm allergic to peanuts."],
         [add("peanuts", scope="agent")]),
    Case("task for this session", "scope", {},
         ["For this session, I'm working on the 2.4 release notes."],
         [add("2.4 release notes", scope="session")]),
    Case("right now", "scope", {}, ["Right now I'm debugging the login page."],
         [add("login page", scope="session")]),
    Case("for now", "scope", {}, ["I want short answers for now."],
         [add("short answers", scope="session")]),
    Case("this week, beside the lasting fact", "scope", LISBON,
         ["I'm at a conference in Madrid this week."], [add("Madrid", scope="session")]),
    Case("one of each", "scope", {},
         ["I live in Lisbon. Today I'm reviewing the flaky deploy test."],
         [add("Lisbon", scope="agent"), add("flaky deploy test", scope="session")]),
    Case("correction stays lasting", "scope", {"r1": "User works at Acme"},
         ["Actually, I work at Globex now."], [replace("r1", "Globex", scope="agent")]),
    # -- written after the rules, and not tuned to (group "held-out ...") ----------------------
    Case("works from home now", "held-out correction", {"r1": "User works at the Lisbon office"},
         ["Actually I work from home now."], [replace("r1", "home")]),
    Case("new phone", "held-out correction", {"r1": "User has an iPhone 12"},
         ["I have a Pixel now, not an iPhone."], [replace("r1", "Pixel")]),
    Case("Rust instead of Go", "held-out correction",
         {"r1": "The user and the assistant decided to write the CLI in Go"},
         ["Actually, let's write the CLI in Rust instead."], [replace("r1", "Rust")]),
    Case("son's age", "held-out correction", {"r1": "User's son is 7"},
         ["Correction: my son is 8."], [replace("r1", "8")]),
    Case("moved to London", "held-out correction", {"r1": "Jon lives in Leeds"},
         ["Jon: I moved to London last year."], [replace("r1", "London")]),
    Case("no more meat", "held-out retraction", {"r1": "User eats meat"},
         ["I don't eat meat anymore."], [delete("r1")]),
    Case("stopped running", "held-out retraction", {"r1": "User runs marathons"},
         ["I stopped running marathons after my knee injury."], [delete("r1")]),
    Case("no longer married", "held-out retraction",
         {"r1": "User is married", "r2": "User lives in Lisbon"},
         ["I'm no longer married."], [delete("r1")]),
    Case("forget my address", "held-out retraction", {"r1": "User's address is 5 Elm Street"},
         ["Forget that my address is 5 Elm Street."], [delete("r1")]),
    Case("still nurse", "held-out restatement", {"r1": "User works as a nurse at St Mary's"},
         ["I still work as a nurse."], [skip("r1")]),
    Case("tea again", "held-out restatement", {"r1": "User prefers green tea"},
         ["Honestly, I prefer green tea."], [skip("r1")]),
    Case("agent wrote the employer", "held-out restatement",
         {"r1": "The user works at Globex as a data engineer"}, ["I work at Globex."],
         [skip("r1")], same_turn=True),
    Case("hobby", "held-out unrelated", {"r1": "User lives in Lisbon"},
         ["I play chess on weekends."], [add("chess")]),
    Case("daughter", "held-out unrelated", {"r1": "User's son is 7"},
         ["My daughter is 4."], [add("daughter is 4")]),
    Case("vim is fine", "held-out look-alike", VIM, ["Vim is fine, I just don't like plugins."],
         [], optional=[ANY_ADD]),
    Case("actually yes", "held-out look-alike", LISBON, ["Actually, yes."], []),
    Case("used to it", "held-out look-alike", VIM, ["I'm used to Vim keybindings by now."], [],
         optional=[ANY_ADD, skip("r1")]),
    Case("gave up on the bug", "held-out look-alike", {"r1": "User is learning Spanish"},
         ["I gave up on fixing that bug yesterday."], [], optional=[ANY_ADD]),
    Case("lasting hobby", "held-out scope", {}, ["I play the cello in an orchestra."],
         [add("cello", scope="agent")]),
    Case("at the moment", "held-out scope", {}, ["At the moment I'm on a train with bad wifi."],
         [add("train", scope="session")]),
    Case("in this conversation", "held-out scope", {},
         ["In this conversation, I want answers in French."], [add("French", scope="session")]),
]  # fmt: skip


@dataclass
class Tally:
    """True and false positives and false negatives of each action."""

    tp: dict[str, int] = field(default_factory=lambda: dict.fromkeys(ACTIONS, 0))
    fp: dict[str, int] = field(default_factory=lambda: dict.fromkeys(ACTIONS, 0))
    fn: dict[str, int] = field(default_factory=lambda: dict.fromkeys(ACTIONS, 0))
    garbled: list[str] = field(default_factory=list)
    narrowed: list[str] = field(default_factory=list)  # agent-scope facts replaced in session scope
    misses: list[str] = field(default_factory=list)

    def precision(self, action: str | None = None) -> float:
        tp, fp = self._sum(self.tp, action), self._sum(self.fp, action)
        return tp / (tp + fp) if tp + fp else 1.0

    def recall(self, action: str | None = None) -> float:
        tp, fn = self._sum(self.tp, action), self._sum(self.fn, action)
        return tp / (tp + fn) if tp + fn else 1.0

    @staticmethod
    def _sum(counts: dict[str, int], action: str | None) -> int:
        return counts[action] if action else sum(counts.values())

    def table(self) -> str:
        rows = [
            "| action | expected | decided | right | precision | recall |",
            "|---|---|---|---|---|---|",
        ]
        for action in (*ACTIONS, None):
            tp = self._sum(self.tp, action)
            expected, decided = tp + self._sum(self.fn, action), tp + self._sum(self.fp, action)
            name = action or "**all**"
            rows.append(
                f"| {name} | {expected} | {decided} | {tp} | {self.precision(action):.2f} | "
                f"{self.recall(action):.2f} |"
            )
        return "\n".join(rows)


# (action, target, summary written or "", scope written or None)
Decided = tuple[str, str | None, str, str | None]


def score(case: Case, decided: Iterable[Decided], tally: Tally, targets: bool = True) -> None:
    """Match the decisions made against the expected ones, action by action."""
    left = list(case.expect)
    for action, target, summary, scope in decided:
        if GARBLED.search(summary):
            tally.garbled.append(f"{case.name}: {summary}")
        hit = next((e for e in left if e.matches(action, target, summary, targets, scope)), None)
        if hit is not None:
            left.remove(hit)
            tally.tp[action] += 1
        elif not any(o.matches(action, target, summary, targets, scope) for o in case.optional):
            tally.fp[action] += 1
            where = f" in {scope} scope" if scope else ""
            tally.misses.append(f"{case.name}: decided {action} {target or ''} {summary!r}{where}")
    for missed in left:
        tally.fn[missed.action] += 1
        where = f" in {missed.scope} scope" if missed.scope else ""
        tally.misses.append(f"{case.name}: expected {missed.action} {missed.target or ''}{where}")


def run_model(cases: Iterable[Case] = CASES) -> Tally:
    """Every case through RuleBasedModel alone: propose over the messages, then decide with
    every existing record shown as a neighbour of every candidate; each add or replace in the
    scope the review would write it in, for an agent that writes both scopes."""
    from agent_memory.adapters.models.rule_based import RuleBasedModel
    from agent_memory.domain.extraction.model import Existing, Message
    from agent_memory.domain.extraction.pipeline import resolve_scope

    model = RuleBasedModel()
    tally = Tally()
    kinds = ["guidance", "fact", "event", "reference"]
    for case in cases:
        messages = [
            Message(role="user", text=text, id=f"m{i}", speaker=None)
            for i, text in enumerate(case.said)
        ]
        candidates = model.propose(messages, "", kinds, {}).value
        shown = [Existing(id=i, summary=s, kind="fact") for i, s in case.existing.items()]
        decisions = model.decide(candidates, dict.fromkeys(range(len(candidates)), shown)).value
        decided: list[Decided] = []
        for d in decisions:
            if d.action == "delete":
                decided.append((d.action, d.target, "", None))
                continue
            candidate = candidates[d.candidate]
            written = resolve_scope(candidate.scope, BOTH) if d.action != "skip" else None
            decided.append((d.action, d.target, candidate.summary, written))
        score(case, decided, tally)
    return tally


def run_service(api, services, cases: Iterable[Case] = CASES) -> Tally:
    """Every case through the extraction service, over the API: the existing records written
    with add_memory in agent scope (in an earlier turn, or in the reviewed turn itself when
    `same_turn`), the user's messages committed as one turn, its review drained, and the
    decisions read back from the records: a new record replacing one is a replace, a record
    deleted by the review a delete, any other new record an add, and the review's `skipped`
    count the skips (their targets are not kept, so skips are matched by action alone)."""
    tally = Tally()
    memory = {
        "enabled": True,
        "scope": {"read": BOTH, "write": BOTH},
        "tools": ["add_memory"],
    }
    for number, case in enumerate(cases):
        agent = f"/v1/agents/corpus/c{number}"
        api.ok("PUT", agent, {"harness": {"memory": memory}}, expect=201)
        session = api.ok("POST", f"{agent}/-/sessions", expect=201)["id"]
        ids: dict[str, str] = {}
        reviewed = _open(api, agent, session)
        writer = reviewed if case.same_turn else _open(api, agent, session)
        for name, summary in case.existing.items():
            body = {"summary": summary, "scope": "agent", "caller": {"role": "agent"}}
            status, out = api.call("POST", f"{writer}/tools/add_memory", body)
            assert status == 200, out
            ids[name] = out["output"]["memories"][0]["id"]
        if writer != reviewed:
            api.ok("POST", f"{writer}/commit")
        events = [{"role": "user", "text": text} for text in case.said]
        api.ok("POST", f"{reviewed}/events", {"events": events})
        api.ok("POST", f"{reviewed}/commit")
        services.drain_extractions()
        review = api.ok("GET", reviewed)["extraction"]
        assert review["status"] == "done", review
        names = {v: k for k, v in ids.items()}
        decided: list[Decided] = []
        for record in api.ok("GET", f"{agent}/-/records")["records"]:
            if record["id"] in names:
                continue
            replaced = record.get("replaces")
            action = "replace" if replaced else "add"
            if replaced and record["scope"] != "agent":
                tally.narrowed.append(f"{case.name}: {record['summary']}")
            target = names.get(replaced or "", replaced)
            decided.append((action, target, record["summary"], record["scope"]))
        for name, record_id in ids.items():
            if api.ok("GET", f"{agent}/-/records/{record_id}")["status"] == "DELETED":
                decided.append(("delete", name, "", None))
        decided += [("skip", None, "", None)] * review["skipped"]
        score(case, decided, tally, targets=True)
    return tally


def _open(api, agent: str, session: str) -> str:
    turn = api.ok("POST", f"{agent}/-/sessions/{session}/turns", {}, expect=201)
    return f"{agent}/-/sessions/{session}/turns/{turn['id']}"
