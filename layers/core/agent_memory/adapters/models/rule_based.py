"""RuleBasedModel: the offline default when no model is configured.

Deterministic: `propose` extracts first-person facts, preferences, decisions and corrections
from the user's messages, one candidate per matching sentence, with the summary in the third
person ("Caroline: I love painting" -> "Caroline loves painting"); `decide` compares each
candidate with its neighbours by word overlap (or a similarity function passed in): a
near-duplicate is skipped, a correction close to an existing memory replaces it, the rest are
added. Its usage counts about four characters per token.
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
_NO_ITS = re.compile(r"^no\s*[,.!]?\s+(it's|it is|that's|that is)\s+(.*)$", re.I)

# (pattern, kind, rewrite) in order of precedence; rewrite gets the speaker and the match.
_FACT, _PREFERENCE, _DECISION = "fact", "preference", "decision"

_IRREGULAR = {"am": "is", "have": "has", "do": "does", "go": "goes", "'m": "is", "'ve": "has"}
_PREFERENCE_VERBS = (
    "like|love|prefer|hate|enjoy|dislike|adore|want|need|can't stand|cannot stand|don't like|"
    "do not like|don't want|do not want"
)
_FACT_VERBS = (
    "live|work|study|teach|own|have|grew up|moved|was born|come from|play|use|run|manage|"
    "volunteer|speak|drive|am allergic|got|started|joined|visited|went|just"
)


# Leading words that carry no fact ("Yeah, I painted that last year").
_INTERJECTION = re.compile(
    r"^(?:(?:yeah|yep|yes|wow|oh|ah|haha|hey|thanks|thank you|absolutely|totally|sure|well|so|"
    r"ok|okay|aww|hmm|honestly|anyway|by the way|btw)\b[\s,!.-]*)+",
    re.I,
)
_WHEN = re.compile(
    r"^((?:last|this|next|earlier this|early this|later this)\s+(?:week(?:end)?|month|year|"
    r"night|summer|winter|spring|fall|autumn|monday|tuesday|wednesday|thursday|friday|"
    r"saturday|sunday)|yesterday|today|tonight|recently|lately|a (?:few|couple of) "
    r"(?:days|weeks|months|years) ago|the other day|since we last (?:spoke|talked|chatted))"
    r"[\s,]+(?=I\b|I'|my\b|we\b)",
    re.I,
)
_CLAUSE = re.compile(r"\s*(?:,|;|\s-\s|\s–\s|\sand\s|\sbut\s)\s*", re.I)
_FIRST_PERSON_START = re.compile(r"^(?:I|I'm|I've|I'd|I'll|my|we)\b", re.I)

# First-person verbs that introduce talk rather than a fact about the speaker.
_FILLER_VERBS = frozenset(
    "think guess mean know hope wonder bet suppose agree understand appreciate totally "
    "believe see get can could would should will might must am was'nt".split()
)


_IRREGULAR_PAST = frozenset(
    "ran met did saw took made had got went came began bought found felt left lost told won "
    "wrote sang swam drove ate gave kept built spent sent heard held paid sat stood taught "
    "caught brought thought fought chose became broke spoke woke rode flew grew knew threw "
    "drew fell forgot hid led lit meant slept wore tore shot read put set cut hit let quit".split()
)


def third_person(verb: str) -> str:
    """The simple present third person of a first-person verb phrase's head word."""
    head, _, rest = verb.partition(" ")
    low = head.lower()
    if low in _IRREGULAR:
        out = _IRREGULAR[low]
    elif low in ("can't", "cannot", "don't", "do", "was", "will", "would", "just"):
        out = {"don't": "doesn't", "do": "does"}.get(low, low)
    elif low in _IRREGULAR_PAST or low.endswith(("ed", "ew", "ent", "ot", "ought")):
        out = low  # past tense: unchanged
    elif re.search(r"(s|sh|ch|x|z|o)$", low):
        out = low + "es"
    elif re.search(r"[^aeiou]y$", low):
        out = low[:-1] + "ies"
    else:
        out = low + "s"
    return f"{out} {rest}".strip()


def _clean(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().rstrip(".!;,").strip()


def _possessives(text: str, subject: str) -> str:
    """First-person words in the rest of a sentence, in the third person."""
    pronoun = "their" if subject in ("The user", "User") else f"{subject}'s"
    text = re.sub(r"\bmy\b", pronoun, text, flags=re.I)
    text = re.sub(r"\bmine\b", f"{subject}'s", text, flags=re.I)
    text = re.sub(r"\bmyself\b", "themselves", text, flags=re.I)
    text = re.sub(r"\bI'm\b", f"{subject} is", text)
    text = re.sub(r"\bI\s+([a-z']+)", lambda m: f"{subject} {third_person(m[1])}", text)
    text = re.sub(r"\bI\b", subject, text)
    text = re.sub(r"\bme\b", subject, text)
    return text


def _first_person(sentence: str, subject: str) -> tuple[str, str] | None:
    """(category, summary) of a first-person fact, preference or decision; None otherwise."""
    s = sentence.strip()
    m = re.match(
        rf"^I\s+(?:really\s+|absolutely\s+|also\s+)?({_PREFERENCE_VERBS})\s+(.+)$", s, re.I
    )
    if m and not re.match(r"^(?:(?:that|how|what)\s+)?(?:you|your)\b", m[2], re.I):
        return _PREFERENCE, f"{subject} {third_person(m[1])} {_possessives(m[2], subject)}"
    m = re.match(r"^my\s+(favou?rite\s+[\w ]+?)\s+(is|are)\s+(.+)$", s, re.I)
    if m:
        return _PREFERENCE, f"{subject}'s {m[1].lower()} {m[2]} {_possessives(m[3], subject)}"
    m = re.match(r"^my\s+([\w' -]{1,40}?)\s+(is|are|was|were)\s+(.+)$", s, re.I)
    if m:
        return _FACT, f"{subject}'s {m[1].lower()} {m[2]} {_possessives(m[3], subject)}"
    m = re.match(
        r"^(?:I am|I'm|Im)\s+(?!sure|not sure|sorry|glad|happy to|going to ask)(.+)$", s, re.I
    )
    if m:
        return _FACT, f"{subject} is {_possessives(m[1], subject)}"
    m = re.match(r"^(?:I have|I've)\s+(?:got\s+)?(.+)$", s, re.I)
    if m:
        return _FACT, f"{subject} has {_possessives(m[1], subject)}"
    m = re.match(rf"^I\s+({_FACT_VERBS})\b\s*(.*)$", s, re.I)
    if m and m[2]:
        return _FACT, f"{subject} {third_person(m[1])} {_possessives(m[2], subject)}"
    m = re.match(
        r"^(?:we(?:'ve| have)? (?:decided|agreed)(?: (to|that|on))?|(let's|let us)|"
        r"(we will|we'll|we are going to|we're going to))\s+(.+)$",
        s,
        re.I,
    )
    if m:
        who = "The user and the assistant" if subject == "User" else f"{subject} and the assistant"
        verb = (m[1] or "to").lower() if not m[3] else "to"
        return _DECISION, f"{who} decided {verb} {_possessives(m[4], subject)}"
    return _said(s, subject)


def _first_person_when(s: str, subject: str) -> tuple[str, str] | None:
    """_first_person, with a leading time ("Last Friday I went to ...") moved to the end of
    the summary ("... went to ... last Friday"), where it still dates the fact."""
    m = _WHEN.match(s)
    if m is None:
        return _first_person(s, subject)
    found = _first_person(s[m.end() :], subject)
    if found is None:
        return None
    return found[0], f"{_clean(found[1])} {m[1].strip().lower()}"


def _said(s: str, subject: str) -> tuple[str, str] | None:
    """Any other statement about the speaker's own life: `I <verb> ...` (what they did, do or
    felt), `we <verb> ...`, or a statement naming something of theirs (`... my ...`). Filler
    (`I think`, `I mean`) and talk about the listener (`I love you`) are left out."""
    m = re.match(
        r"^I\s+(?:really\s+|just\s+|also\s+|finally\s+|recently\s+|actually\s+)?"
        r"([a-z]+(?:'t)?)\s+(.+)$",
        s,
        re.I,
    )
    if (
        m
        and m[1].lower() not in _FILLER_VERBS
        and len(m[2].split()) >= 2
        and not re.match(r"^(?:(?:that|so|it|this)\s+)?(?:you|your)\b", m[2], re.I)
    ):
        return _FACT, f"{subject} {third_person(m[1])} {_possessives(m[2], subject)}"
    m = re.match(r"^we\s+(?:just\s+|also\s+|finally\s+)?([a-z]+)\s+(.+)$", s, re.I)
    if m and m[1].lower() not in _FILLER_VERBS and len(m[2].split()) >= 2:
        return _FACT, f"{subject} and others {m[1].lower()} {_possessives(m[2], subject)}"
    if re.search(r"\bmy\b", s, re.I) and len(s.split()) >= 5 and not re.search(r"\byou", s, re.I):
        return _FACT, f"{subject}: {_possessives(s, subject)}"
    return None


def _about_them(s: str, subject: str) -> tuple[str, str] | None:
    """The people and things in their life, as they tell of them ("They were stoked for the
    dinosaur exhibit"): kept in the speaker's words, attributed to the speaker."""
    if (
        re.match(r"^(?:they|he|she|it|the kids|our)\b", s, re.I)
        and len(s.split()) >= 5
        and not re.search(r"\byou", s, re.I)
    ):
        return _FACT, f"{subject}: {_possessives(s, subject)}"
    return None


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
    """Deterministic extraction with similarity-based skip and replace; no network."""

    model_id = MODEL_ID

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
        self._kinds = kinds or {_FACT: "fact", _PREFERENCE: "fact", _DECISION: "event"}

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
        body, correction = sentence, False
        m = _NO_ITS.match(sentence)
        if m:
            found: tuple[str, str] | None = (_FACT, f"Correction from {subject}: {m[1]} {m[2]}")
            correction = True
        else:
            m = _CORRECTION.match(sentence)
            if m and not re.match(r"^no\s+(?:one|way|idea|problem|worries)\b", sentence, re.I):
                body, correction = m[1], True
            found = _first_person_when(_clean(_INTERJECTION.sub("", body)), subject)
            if found is None:
                # A first-person clause inside the sentence ("They've been great, I've known
                # them for 4 years").
                for clause in _CLAUSE.split(body)[1:]:
                    if _FIRST_PERSON_START.match(clause):
                        found = _first_person(_clean(clause), subject)
                        if found is not None:
                            break
            if found is None:
                found = _about_them(_clean(_INTERJECTION.sub("", body)), subject)
            if found is None and correction and not sentence.lower().startswith("no"):
                found = (_FACT, f"Correction from {subject}: {_possessives(_clean(body), subject)}")
        if found is None:
            return None
        category, summary = found
        summary = _clean(summary)
        summary = summary[0].upper() + summary[1:]
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
            correction=correction,
        )

    def decide(
        self,
        candidates: list[Candidate],
        neighbours: dict[int, list[Existing]],
    ) -> ModelResult[list[Decision]]:
        decisions: list[Decision] = []
        accepted: list[str] = []
        replaced: set[str] = set()
        for index, candidate in enumerate(candidates):
            best: Existing | None = None
            best_score = -1.0
            for existing in neighbours.get(index, []):
                score = self._similarity(candidate.summary, existing.summary)
                if score > best_score:
                    best, best_score = existing, score
            earlier = max((self._similarity(candidate.summary, s) for s in accepted), default=0.0)
            if best is not None and best_score >= self._skip_at:
                decisions.append(
                    Decision(
                        candidate=index,
                        action="skip",
                        target=best.id,
                        reason=f"restates {best.id} (similarity {best_score:.2f})",
                    )
                )
            elif earlier >= self._skip_at:
                decisions.append(
                    Decision(
                        candidate=index,
                        action="skip",
                        reason=f"restates an earlier candidate (similarity {earlier:.2f})",
                    )
                )
            elif (
                best is not None
                and candidate.correction
                and best_score >= self._replace_at
                and best.id not in replaced
            ):
                replaced.add(best.id)
                accepted.append(candidate.summary)
                decisions.append(
                    Decision(
                        candidate=index,
                        action="replace",
                        target=best.id,
                        reason=f"corrects {best.id} (similarity {best_score:.2f})",
                    )
                )
            else:
                accepted.append(candidate.summary)
                decisions.append(Decision(candidate=index, action="add", reason="new"))
        read = json.dumps(
            [c.summary for c in candidates]
            + [e.summary for group in neighbours.values() for e in group]
        )
        written = "\n".join(f"{d.candidate} {d.action} {d.target or ''}" for d in decisions)
        usage = ModelUsage(
            model_id=MODEL_ID, input_tokens=_estimate(read), output_tokens=_estimate(written)
        )
        return ModelResult(decisions, [usage])
