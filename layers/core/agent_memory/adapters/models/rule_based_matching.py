"""How RuleBasedModel compares a candidate with a memory: each summary is read back as a
statement (who, which relation, the words it says about it, whether it says the relation no
longer holds), so that a restatement is skipped whatever its wording, a correction replaces the
memory about the same thing, and a retraction deletes it.

    "User lives in Porto now" (a correction)  vs "User lives in Lisbon"      -> same slot: replace
    "User no longer uses Vim"                 vs "User uses Vim"             -> retracts: delete
    "User lives in Porto"                     vs "The user lives in Porto, Portugal" -> restates
    "User's sister lives in Porto"            vs "User lives in Lisbon"      -> another subject
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

_TOKEN = re.compile(r"[a-z0-9][a-z0-9'-]*")
_STOP = frozenset(
    "a an the in at on of to for with and or but is are was were be been am has have had do "
    "does did their his her its my our your user users that this these those it as by from "
    "over than very really still also too just now actually anymore longer no not nowadays "
    "days instead every last next week weeks month months year years yesterday today ago some "
    "much more even well there they them who which currently again always usually lot so then "
    "again here one".split()
)
# Relations a person holds one of at a time: a correction of one replaces it even when the new
# value shares no word with the old ("lives in Lisbon" -> "lives in Porto").
_SLOTS = {
    "live": "live", "lives": "live", "lived": "live", "living": "live", "moved": "live",
    "moves": "live", "relocated": "live", "work": "work", "works": "work", "worked": "work",
    "working": "work", "use": "use", "uses": "use", "used": "use", "using": "use",
    "switched": "use", "is": "be", "are": "be", "was": "be", "were": "be", "has": "have",
    "have": "have", "had": "have", "like": "like", "likes": "like", "liked": "like",
    "love": "like", "loves": "like", "loved": "like", "prefer": "like", "prefers": "like",
    "preferred": "like", "enjoys": "like", "enjoy": "like",
}  # fmt: skip
_RELATIONS = frozenset(_SLOTS.values())
_SINGLE = frozenset({"live", "work"})
_BROAD = frozenset({"be", "have", "like"})
# After the subject: the relation no longer holds (strong: said so outright) ...
_STRONG = re.compile(
    r"^(?:no longer|is no longer|are no longer|stopped|quit|gave up(?: on)?|used to|"
    r"asked to forget that)\s+",
    re.I,
)
# ... or is denied (weak: a retraction only when the user is correcting something).
_WEAK = re.compile(r"^(?:doesn't|does not|didn't|did not|is not|isn't|never|has no)\s+", re.I)
_CHANGE = re.compile(
    r"\b(?:now|these days|nowadays|instead|anymore|moved|switched|relocated)\b", re.I
)
_SWITCH = re.compile(r"\b(?:moved|switched|relocated|instead)\b", re.I)
_ADDITIVE = re.compile(r"\b(?:too|also|as well|another|both)\b", re.I)
_DENIED = re.compile(r",?\s+(?:not|rather than|instead of)\s+(.*)$", re.I)
_DECISION = re.compile(
    r"^(.+?) and the assistant (?:decided|agreed)(?: (?:to|that|on|against|upon))? (.+)$", re.I
)
_SUBJECT = re.compile(
    r"^((?i:the user|user)|[A-Z][\w-]*(?: [A-Z][\w-]*)?)((?: and others)?)('s\b)?\s*(.*)$"
)
_VERB_CUE = frozenset("is are was were has have had doesn't does no".split())


def stem(word: str) -> str:
    """A crude shared stem, so "lives", "living" and "live" meet, and "cats" meets "cat"."""
    word = word.lower().removesuffix("'s")
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    for suffix in ("ing", "ed", "es", "s", "e"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            # "running" meets "runs": a consonant doubled before -ing/-ed is one.
            if suffix in ("ing", "ed") and word[-1] == word[-2] and word[-1] not in "lsaeiou":
                word = word[:-1]
            return word
    return word


def words(text: str) -> frozenset[str]:
    return frozenset(stem(t) for t in _TOKEN.findall(text.lower()) if t not in _STOP)


@dataclass(frozen=True)
class Statement:
    subject: str
    slot: str | None
    words: frozenset[str]
    denied: frozenset[str] = frozenset()
    strong: bool = False  # says outright the relation no longer holds
    weak: bool = False  # denies it ("doesn't", "never")
    possessive: bool = False  # about something of the subject's ("User's dog's name ...")

    @property
    def negated(self) -> bool:
        return self.strong or self.weak


def parse(summary: str) -> Statement:
    """A summary read back as a statement; what does not parse is its words, subject-less."""
    text = re.sub(r"\s+", " ", summary).strip().rstrip(".")
    m = re.match(r"^(?:Correction from )?([A-Z][\w .'-]{0,40}?): (.+)$", text)
    if m:
        inner = parse(m[2])
        return inner if inner.subject else Statement(m[1].lower(), None, inner.words)
    m = _DECISION.match(text)
    if m:
        rest, denied = _split_denied(m[2])
        return Statement(f"{m[1].lower()} and the assistant", "decided", words(rest), denied)
    m = _SUBJECT.match(text)
    if m is None:
        return Statement("", None, words(text))
    subject, rest, possessive = (m[1] + m[2]).lower().removeprefix("the "), m[4], bool(m[3])
    if possessive:  # the thing of theirs runs up to its verb: "User's dog's name | is Rex"
        tokens = rest.split(" ")
        end = next(
            (i for i, t in enumerate(tokens) if i and (t in _VERB_CUE or t.endswith(("s", "ed")))),
            len(tokens),
        )
        subject, rest = f"{subject}'s {' '.join(tokens[:end]).lower()}", " ".join(tokens[end:])
    strong = weak = False
    forget = re.match(r"^asked to forget that (.+)$", rest, re.I)
    if forget:
        return dataclasses.replace(parse(forget[1]), strong=True, weak=False)
    rest = re.sub(r"^(?:still|really|also|just|now|actually|even)\s+", "", rest, flags=re.I)
    for pattern in (_STRONG, _WEAK):
        found = pattern.match(rest)
        if found:
            strong, weak = pattern is _STRONG, pattern is _WEAK
            rest = rest[found.end() :]
            break
    rest, denied = _split_denied(rest)
    head, _, tail = rest.partition(" ")
    slot = _SLOTS.get(head.lower(), stem(head) if head else None)
    said = words(tail) | ({slot} if slot and slot not in _BROAD else frozenset())
    return Statement(subject, slot, said, denied, strong, weak, possessive)


def _split_denied(text: str) -> tuple[str, frozenset[str]]:
    m = _DENIED.search(text)
    if m is None:
        return text, frozenset()
    return text[: m.start()], words(m[1])


def retracts(candidate: Statement, correction: bool) -> bool:
    return candidate.strong or (candidate.weak and correction)


def removes(candidate: Statement, memory: Statement) -> bool:
    """Whether a retraction takes back `memory`: the same subject, a memory that holds, and
    they share most of what either names ("no longer uses Vim" / "uses Vim")."""
    if candidate.subject != memory.subject or memory.negated or not candidate.words:
        return False
    shared = candidate.words & memory.words
    if not shared - _RELATIONS:
        return False  # "no longer uses Vim" takes nothing back from "uses Emacs"
    # Most of what either names: "stopped running marathons after a knee injury" takes back
    # "runs marathons".
    return max(len(shared) / len(candidate.words), len(shared) / len(memory.words)) >= 0.66


def restates(candidate: Statement, memory: Statement) -> bool:
    """Whether the candidate says nothing the memory does not: all its words are in the memory
    ("lives in Porto" / "lives in Porto, Portugal"), or it adds at most one to it."""
    if candidate.subject != memory.subject or candidate.negated != memory.negated:
        return False
    if not candidate.words or not memory.words or candidate.denied & memory.words:
        return False
    if candidate.words <= memory.words:
        return True
    # One word more than a memory of one or two words is another thing ("is here for you" /
    # "is happy for you", "runs marathons" / "runs half marathons").
    extra = len(candidate.words - memory.words)
    return len(memory.words) >= 3 and memory.words <= candidate.words and extra <= 1


def corrects(candidate: Statement, memory: Statement, summary: str) -> int:
    """How strongly the candidate, said as a correction, corrects `memory` (0: it does not).
    Same subject and relation; the relation holds one value at a time (where one lives), or
    the two share a word ("has three cats" / "has two cats"), or the user says they switched."""
    if candidate.subject != memory.subject or memory.negated or candidate.negated:
        return 0
    if candidate.slot != memory.slot or candidate.slot is None or _ADDITIVE.search(summary):
        return 0
    slot = {candidate.slot}
    shared = len((candidate.words | candidate.denied) & memory.words - slot)
    single = candidate.slot in _SINGLE or (candidate.possessive and candidate.slot == "be")
    if shared or single or _SWITCH.search(summary):
        return 1 + shared
    return 0


def is_change(summary: str) -> bool:
    """A summary that says something changed ("now", "moved", "instead")."""
    return bool(_CHANGE.search(summary))
