"""RuleBasedModel: the offline default when no model is configured.

Deterministic: `propose` extracts first-person facts, preferences, decisions, corrections and
retractions from the user's messages, one candidate per matching sentence, with the summary in
the third person ("Caroline: I love painting" -> "Caroline loves painting"; how is in
rule_based_phrasing). `decide` reads each candidate and its neighbours back as statements
(rule_based_matching): a retraction deletes the memory it takes back, a restatement in any
wording is skipped (as is a near-duplicate by the similarity function passed in), a correction
replaces the memory of the same relation, the rest are added. Each candidate's scope is agent
for what holds beyond the conversation and session for what the user ties to it
(rule_based_scope). Its usage counts about four characters per token.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from agent_memory.domain.extraction.model import (
    CONTENT_MAX_CHARS,
    SUMMARY_MAX_CHARS,
    Candidate,
    Decision,
    Existing,
    MemoryModel,
    Message,
    ModelResult,
    ModelUsage,
)
from agent_memory.domain.extraction.restatements import no_referent

from .rule_based_matching import corrects, is_change, parse, removes, restates, retracts
from .rule_based_phrasing import (
    CLAUSE,
    DECISION,
    FACT,
    FIRST_PERSON_START,
    INTERJECTION,
    PREFERENCE,
    Found,
    about_them,
    clean,
    first_person,
    first_person_when,
    possessives,
    third_person,
)
from .rule_based_scope import scope_of, without_leading_marker

MODEL_ID = "rule-based"
SKIP_AT = 0.8
REPLACE_AT = 0.5

Similarity = Callable[[str, str], float]

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
_SPEAKER = re.compile(r"^\s*([A-Z][\w .'-]{0,40}?)\s*:\s+(.*)$", re.S)
_SECRET = re.compile(
    r"\b(password|passcode|passphrase|pin code|api[ _-]?key|secret|token|ssn|social security|"
    r"credit card|card number|account number|iban|private key)\b",
    re.I,
)
_CORRECTION = re.compile(
    r"^(?:actually|correction|to correct myself|no|i mean(?=\s*,))\s*[,:;!.-]?\s+(.*)$", re.I
)
_NOT_SPEAKERS = frozenset({"correction", "actually", "note", "update", "edit", "ps", "p.s", "fyi"})
# "No, it's Berlin" corrects what the assistant said; "No, it's fine" agrees with it.
_NO_ITS = re.compile(
    r"^no\s*[,.!]?\s+(it's|it is|that's|that is)\s+(?!(?:fine|ok|okay|alright|all right|right|"
    r"true|correct|good|great|perfect|cool|nothing|no problem|not)\b)(.*)$",
    re.I,
)
# What a correction without a first-person fact may still say: not an agreement or a remark
# about the conversation ("Actually, that's right").
_TALK = re.compile(r"^(?:that|it|this|you|sure|right|ok|okay|yes|no|never mind)\b", re.I)
# "I used to live in Lisbon but now I live in Porto": the second part corrects the first.
_USED_TO = re.compile(r"^I used to\s+.+?(?:,|\s+but|\s+and)\s+(?:now\s+)?(I\b.+)$", re.I)


def _clean_start(text: str) -> str:
    """The sentence without the interjections it opens with."""
    return INTERJECTION.sub("", text).strip()


def _sentences(text: str) -> list[str]:
    return [p.strip() for p in _SENTENCE_END.split(text) if p and p.strip()]


def tokens(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def jaccard(a: str, b: str) -> float:
    ta, tb = tokens(a), tokens(b)
    if not ta and not tb:
        return 1.0
    return len(ta & tb) / len(ta | tb)


def _estimate(text: str) -> int:
    return max(1, (len(text) + 3) // 4)


class RuleBasedModel(MemoryModel):
    """Deterministic extraction and decisions by rules; no network."""

    model_id = MODEL_ID
    restates = True

    def __init__(
        self,
        *,
        similarity: Similarity = jaccard,
        skip_at: float = SKIP_AT,
        replace_at: float = REPLACE_AT,
        kinds: dict[str, str] | None = None,
    ) -> None:
        self._similarity = similarity
        self._skip_at = skip_at
        self._replace_at = replace_at
        # Category -> preferred kind; a kind the agent does not declare falls back to its first.
        self._kinds = kinds or {FACT: "fact", PREFERENCE: "fact", DECISION: "event"}

    def propose(
        self,
        messages: list[Message],
        instructions: str,
        existing_kinds: list[str],
        labels: dict[str, str],
    ) -> ModelResult[list[Candidate]]:
        # `instructions` and `labels` are for LLMs: the rules are fixed and set no labels.
        candidates: list[Candidate] = []
        seen: set[str] = set()
        for message in messages:
            if message.role != "user":
                continue
            speaker, text = message.speaker, message.text
            m = _SPEAKER.match(text)
            if m and len(m[1].split()) <= 3 and m[1].strip().lower() not in _NOT_SPEAKERS:
                speaker = speaker or m[1].strip()
                text = m[2]
            subject = speaker.strip() if speaker and speaker.strip() else "User"
            for sentence in _sentences(text):
                candidate = self._candidate(sentence, subject, message, existing_kinds)
                if candidate and candidate.summary.lower() not in seen:
                    seen.add(candidate.summary.lower())
                    candidates.append(candidate)
        read = instructions + "".join(m.text for m in messages)
        written = "\n".join(c.summary for c in candidates)
        usage = ModelUsage(
            model_id=MODEL_ID, input_tokens=_estimate(read), output_tokens=_estimate(written)
        )
        return ModelResult(candidates, [usage])

    def _candidate(
        self, sentence: str, subject: str, message: Message, kinds: list[str]
    ) -> Candidate | None:
        if sentence.endswith("?") or _SECRET.search(sentence):
            return None
        scope = scope_of(sentence)
        found, correction = self._found(without_leading_marker(sentence), subject)
        if found is None:
            return None
        category, summary = found
        summary = clean(summary)
        summary = summary[0].upper() + summary[1:]
        if no_referent(summary):  # "Melanie loves it": kept only when it names what it loves
            return None
        if len(summary) > SUMMARY_MAX_CHARS:
            summary = summary[: SUMMARY_MAX_CHARS - 1].rstrip() + "…"
        kind = self._kinds.get(category, "fact")
        if kind not in kinds and kinds:
            kind = kinds[0]
        when = f" on {message.time}" if message.time else ""
        said = sentence.strip()
        room = CONTENT_MAX_CHARS - len(message.speaker or subject) - len(when) - 16
        if len(said) > room:  # a pasted log is one "sentence": quote its start
            said = said[: room - 1].rstrip() + "…"
        quoted = f'{message.speaker or subject} said{when}: "{said}"'
        return Candidate(
            summary=summary,
            content=quoted,
            kind=kind,
            sources=[message.id] if message.id else [],
            scope=scope,
            correction=correction,
        )

    def _found(self, sentence: str, subject: str) -> tuple[Found | None, bool]:
        """(category, summary) of a sentence, and whether it corrects something said before."""
        m = _NO_ITS.match(sentence)
        if m:
            return (FACT, f"Correction from {subject}: {m[1]} {m[2]}"), True
        body = _clean_start(sentence)
        # "actually" anywhere corrects ("my dog's name is actually Max").
        correction = bool(re.search(r"\bactually\b", sentence, re.I))
        m = _CORRECTION.match(body)
        if m and not re.match(r"^no\s+(?:one|way|idea|problem|worries|doubt)\b", body, re.I):
            body, correction = _clean_start(m[1]), True
        m = _USED_TO.match(body)
        if m:
            body, correction = m[1], True
        found = first_person_when(clean(body), subject)
        if found is None:
            # A first-person clause inside the sentence ("They've been great, I've known
            # them for 4 years").
            for clause in CLAUSE.split(body)[1:]:
                if FIRST_PERSON_START.match(clause):
                    found = first_person(clean(clause), subject)
                    if found is not None:
                        break
        if found is None:
            found = about_them(clean(body), subject)
        if (
            found is None
            and correction
            and not sentence.lower().startswith("no")
            and len(body.split()) >= 3
            and not _TALK.match(body)
        ):
            found = (FACT, f"Correction from {subject}: {possessives(clean(body), subject)}")
        return found, correction

    def decide(
        self,
        candidates: list[Candidate],
        neighbours: dict[int, list[Existing]],
    ) -> ModelResult[list[Decision]]:
        decisions: list[Decision] = []
        accepted: list[str] = []
        changed: set[str] = set()
        for index, candidate in enumerate(candidates):
            shown = [e for e in neighbours.get(index, []) if e.id not in changed]
            decision = self._decide_one(index, candidate, shown, accepted)
            if decision.action in ("add", "replace"):
                accepted.append(candidate.summary)
            if decision.target and decision.action in ("replace", "delete"):
                changed.add(decision.target)
            decisions.append(decision)
        read = json.dumps(
            [c.summary for c in candidates]
            + [e.summary for group in neighbours.values() for e in group]
        )
        written = "\n".join(f"{d.candidate} {d.action} {d.target or ''}" for d in decisions)
        usage = ModelUsage(
            model_id=MODEL_ID, input_tokens=_estimate(read), output_tokens=_estimate(written)
        )
        return ModelResult(decisions, [usage])

    def _decide_one(
        self, index: int, candidate: Candidate, shown: list[Existing], accepted: list[str]
    ) -> Decision:
        """Delete what a retraction takes back; skip a restatement (of a memory, then of an
        earlier candidate); replace what a correction corrects; add the rest."""
        said = parse(candidate.summary)
        read = [
            (e, parse(e.summary), self._similarity(candidate.summary, e.summary)) for e in shown
        ]

        def best(scored: list[tuple[Existing, float, float]]) -> Existing | None:
            return max(scored, key=lambda t: (t[1], t[2]))[0] if scored else None

        if retracts(said, candidate.correction):
            gone = best(
                [(e, len(said.words & st.words), sim) for e, st, sim in read if removes(said, st)]
            )
            if gone is not None:
                return Decision(
                    candidate=index, action="delete", target=gone.id, reason=f"retracts {gone.id}"
                )
        same = best(
            [
                (e, sim, sim)
                for e, st, sim in read
                if restates(said, st) or (sim >= self._skip_at and said.negated == st.negated)
            ]
        )
        if same is not None:
            return Decision(
                candidate=index, action="skip", target=same.id, reason=f"restates {same.id}"
            )
        earlier = max((self._similarity(candidate.summary, s) for s in accepted), default=0.0)
        if earlier >= self._skip_at or any(restates(said, parse(s)) for s in accepted):
            return Decision(candidate=index, action="skip", reason="restates an earlier candidate")
        if candidate.correction or is_change(candidate.summary):
            scored = [(e, corrects(said, st, candidate.summary), sim) for e, st, sim in read]
            # A correction in words the rules cannot read ("Correction from ...") replaces
            # what it mostly repeats.
            if said.slot is None:
                scored = [(e, 1, sim) for e, _, sim in scored if sim >= self._replace_at]
            old = best([t for t in scored if t[1] > 0])
            if old is not None:
                return Decision(
                    candidate=index, action="replace", target=old.id, reason=f"corrects {old.id}"
                )
        return Decision(candidate=index, action="add", reason="new")


__all__ = ["MODEL_ID", "RuleBasedModel", "jaccard", "third_person"]
