"""How RuleBasedModel words what a user says about themselves: one sentence in the first person
becomes a one-line summary in the third person ("Caroline: I love painting" -> "Caroline loves
painting"), or nothing when the sentence holds no fact, preference or decision.

A retraction keeps its meaning in a fixed shape the decide step reads back: "I don't use Vim
anymore" -> "User no longer uses Vim", "I used to live in Lisbon" -> "User used to live in
Lisbon", "Please forget that I use Vim" -> "User asked to forget that User uses Vim".
"""

from __future__ import annotations

import re

FACT, PREFERENCE, DECISION = "fact", "preference", "decision"
Found = tuple[str, str]  # (category, summary)

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
INTERJECTION = re.compile(
    r"^(?:(?:yeah|yep|yes|wow|oh|ah|haha|hey|thanks|thank you|absolutely|totally|sure|well|so|"
    r"ok|okay|aww|hmm|honestly|anyway|by the way|btw|sorry|sadly|as i said|like i said|"
    r"just so you know|for the record)\b[\s,!.-]*)+",
    re.I,
)
_WHEN = re.compile(
    r"^((?:last|this|next|earlier this|early this|later this)\s+(?:week(?:end)?|month|year|"
    r"night|summer|winter|spring|fall|autumn|monday|tuesday|wednesday|thursday|friday|"
    r"saturday|sunday)|yesterday|today|tonight|recently|lately|these days|nowadays|"
    r"a (?:few|couple of) (?:days|weeks|months|years) ago|the other day|"
    r"since we last (?:spoke|talked|chatted))"
    r"[\s,]+(?=I\b|I'|my\b|we\b)",
    re.I,
)
CLAUSE = re.compile(r"\s*(?:,|;|\s-\s|\s–\s|\sand\s|\sbut\s)\s*", re.I)
FIRST_PERSON_START = re.compile(r"^(?:I|I'm|I've|I'd|I'll|my|we)\b", re.I)

# First-person verbs that introduce talk rather than a fact about the speaker.
_FILLER_VERBS = frozenset(
    "think guess mean know hope wonder bet suppose agree understand appreciate totally "
    "believe see get can could would should will might must am was'nt".split()
)
# "I don't think Vim is bad" is an opinion about talk, not a fact that Vim is not used.
_NEGATED_FILLER = re.compile(
    r"^I\s+(?:don't|do not|didn't|did not)\s+(?:think|know|mean|believe|remember|see|get|"
    r"understand|guess|mind|care if)\b",
    re.I,
)
_IRREGULAR_PAST = frozenset(
    "ran met did saw took made had got went came began bought found felt left lost told won "
    "wrote sang swam drove ate gave kept built spent sent heard held paid sat stood taught "
    "caught brought thought fought chose became broke spoke woke rode flew grew knew threw "
    "drew fell forgot hid led lit meant slept wore tore shot read put set cut hit let quit".split()
)
# Heads that keep their form (or have their own) in the third person: never "coulds".
_AUXILIARY = frozenset(
    "can't cannot don't do was will would just used could should might must may can were "
    "haven't wasn't weren't didn't won't wouldn't couldn't shouldn't isn't aren't".split()
)
_NO_LONGER = r"(?:anymore|any more|any longer|no more)"
_ADVERBS = r"still|never|always|usually|often|sometimes"


def third_person(verb: str) -> str:
    """The simple present third person of a first-person verb phrase's head word."""
    head, _, rest = verb.partition(" ")
    low = head.lower()
    if low in _IRREGULAR:
        out = _IRREGULAR[low]
    elif low in _AUXILIARY:
        out = {"don't": "doesn't", "do": "does", "haven't": "hasn't"}.get(low, low)
    elif low in _IRREGULAR_PAST or low.endswith(("ed", "ew", "ent", "ot", "ought")):
        out = low  # past tense: unchanged
    elif re.search(r"(s|sh|ch|x|z|o)$", low):
        out = low + "es"
    elif re.search(r"[^aeiou]y$", low):
        out = low[:-1] + "ies"
    else:
        out = low + "s"
    return f"{out} {rest}".strip()


def _adverb_verb(adverb: str | None, verb: str) -> str:
    """An adverb that changes the meaning stays before the verb: "never liked", "still
    lives" (never "stills live")."""
    if not adverb:
        return third_person(verb)
    low = adverb.lower()
    return f"{low} {verb if low == 'never' else third_person(verb)}"


def clean(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().rstrip(".!;,").strip()


def possessives(text: str, subject: str) -> str:
    """First-person words in the rest of a sentence, in the third person."""
    pronoun = "their" if subject in ("The user", "User") else f"{subject}'s"
    text = re.sub(r"\bmy\b", pronoun, text, flags=re.I)
    text = re.sub(r"\bmine\b", f"{subject}'s", text, flags=re.I)
    text = re.sub(r"\bmyself\b", "themselves", text, flags=re.I)
    # Contractions first: "I've" must never come out as "User've".
    for short, long in (("I'm", "is"), ("I've", "has"), ("I'd", "would"), ("I'll", "will")):
        text = re.sub(rf"\b{short}\b", f"{subject} {long}", text)
    text = re.sub(
        rf"\bI\s+(?:({_ADVERBS})\s+)?([a-z']+)",
        lambda m: f"{subject} {_adverb_verb(m[1], m[2])}",
        text,
    )
    text = re.sub(r"\bI\b", subject, text)
    text = re.sub(r"\bme\b", subject, text)
    return text


def retraction(s: str, subject: str) -> Found | None:
    """A fact the speaker says no longer holds, in the shape `decide` reads back."""
    m = re.match(
        rf"^I\s+(?:don't|do not|no longer)\s+([a-z]+)\s+(.+?)\s*(?:{_NO_LONGER})?$", s, re.I
    )
    if m and (re.search(rf"\b{_NO_LONGER}$", s, re.I) or re.match(r"^I no longer", s, re.I)):
        rest = possessives(m[2], subject)
        return FACT, f"{subject} no longer {third_person(m[1].lower())} {rest}"
    m = re.match(rf"^(?:I am|I'm)\s+(?:not|no longer)\s+(.+?)\s*(?:{_NO_LONGER})?$", s, re.I)
    if m and (re.search(rf"\b{_NO_LONGER}$", s, re.I) or re.search(r"no longer", s, re.I)):
        return FACT, f"{subject} is no longer {possessives(m[1], subject)}"
    # "I stopped playing tennis"; "stopped by", "quit Vim (the editor) with :q" are not.
    m = re.match(r"^I\s+(stopped|quit|gave up(?: on)?)\s+(?!by\b|at\b|in\b|for\b|to\b)(.+)$", s)
    if m:
        return FACT, f"{subject} {m[1].lower()} {possessives(m[2], subject)}"
    m = re.match(r"^(?:please\s+)?forget\s+(?:that\s+|about\s+)?(.+)$", s, re.I)
    if m:
        inner = first_person(clean(m[1]), subject)
        if inner is not None:
            return FACT, f"{subject} asked to forget that {inner[1]}"
    return None


def first_person(sentence: str, subject: str) -> Found | None:
    """(category, summary) of a first-person fact, preference or decision; None otherwise."""
    s = sentence.strip()
    if _NEGATED_FILLER.match(s):
        return None
    found = retraction(s, subject)
    if found is not None:
        return found
    m = re.match(
        rf"^I\s+(?:really\s+|absolutely\s+|also\s+)?({_PREFERENCE_VERBS})\s+(.+)$", s, re.I
    )
    if m and not re.match(r"^(?:(?:that|how|what)\s+)?(?:you|your)\b", m[2], re.I):
        return PREFERENCE, f"{subject} {third_person(m[1])} {possessives(m[2], subject)}"
    m = re.match(r"^my\s+(favou?rite\s+[\w ]+?)\s+(is|are)\s+(.+)$", s, re.I)
    if m:
        return PREFERENCE, f"{subject}'s {m[1].lower()} {m[2]} {possessives(m[3], subject)}"
    m = re.match(r"^my\s+([\w' -]{1,40}?)\s+(is|are|was|were)\s+(.+)$", s, re.I)
    if m:
        return FACT, f"{subject}'s {m[1].lower()} {m[2]} {possessives(m[3], subject)}"
    # "My sister lives in Porto now": someone of theirs, named as theirs.
    m = re.match(
        r"^my\s+([a-z'-]+(?:\s+[a-z'-]+)?)\s+((?:doesn't\s+|does not\s+|no longer\s+)?"
        r"[a-z]+(?:s|ed))\s+(.+)$",
        s,
        re.I,
    )
    if m and not m[1].lower().endswith(("ing", "ed")):
        return FACT, f"{subject}'s {m[1].lower()} {m[2].lower()} {possessives(m[3], subject)}"
    m = re.match(
        r"^(?:I am|I'm|Im)\s+(?!sure|not sure|sorry|glad|happy to|going to ask)(.+)$", s, re.I
    )
    if m:
        return FACT, f"{subject} is {possessives(m[1], subject)}"
    m = re.match(r"^(?:I have|I've)\s+(?:got\s+)?(.+)$", s, re.I)
    if m:
        return FACT, f"{subject} has {possessives(m[1], subject)}"
    m = re.match(rf"^I\s+({_FACT_VERBS})\b\s*(.*)$", s, re.I)
    if m and m[2]:
        return FACT, f"{subject} {third_person(m[1])} {possessives(m[2], subject)}"
    found = _decision(s, subject)
    return found if found is not None else _said(s, subject)


def _decision(s: str, subject: str) -> Found | None:
    """What the user and the assistant settled on. "We decided the tag format is vX.Y.Z" has
    no "to": it reads "decided that ...", never "decided to the tag format ..."."""
    m = re.match(
        r"^(?:we(?:'ve| have)? (decided|agreed)(?: (to|that|on|against|upon))?|(let's|let us)|"
        r"(we will|we'll|we are going to|we're going to))\s+(.+)$",
        s,
        re.I,
    )
    if m is None:
        return None
    who = "The user and the assistant" if subject == "User" else f"{subject} and the assistant"
    verb = (m[1] or "decided").lower()
    link = (m[2] or ("to" if m[3] or m[4] else "that")).lower()
    return DECISION, f"{who} {verb} {link} {possessives(m[5], subject)}"


def first_person_when(s: str, subject: str) -> Found | None:
    """first_person, with a leading time ("Last Friday I went to ...") moved to the end of
    the summary ("... went to ... last Friday"), where it still dates the fact."""
    m = _WHEN.match(s)
    if m is None:
        return first_person(s, subject)
    found = first_person(s[m.end() :], subject)
    if found is None:
        return None
    return found[0], f"{clean(found[1])} {m[1].strip().lower()}"


def _said(s: str, subject: str) -> Found | None:
    """Any other statement about the speaker's own life: `I <verb> ...` (what they did, do or
    felt), `we <verb> ...`, or a statement naming something of theirs (`... my ...`). Filler
    (`I think`, `I mean`) and talk about the listener (`I love you`) are left out."""
    m = re.match(
        r"^I\s+(?:really\s+|just\s+|also\s+|finally\s+|recently\s+|actually\s+)?"
        rf"(?:({_ADVERBS})\s+)?([a-z]+(?:'t)?)\s+(.+)$",
        s,
        re.I,
    )
    if (
        m
        and m[2].lower() not in _FILLER_VERBS
        and len(m[3].split()) >= (1 if m[1] else 2)
        and not re.match(r"^(?:(?:that|so|it|this)\s+)?(?:you|your)\b", m[3], re.I)
    ):
        return FACT, f"{subject} {_adverb_verb(m[1], m[2])} {possessives(m[3], subject)}"
    m = re.match(r"^we\s+(?:just\s+|also\s+|finally\s+)?([a-z]+)\s+(.+)$", s, re.I)
    if m and m[1].lower() not in _FILLER_VERBS and len(m[2].split()) >= 2:
        return FACT, f"{subject} and others {m[1].lower()} {possessives(m[2], subject)}"
    if re.search(r"\bmy\b", s, re.I) and len(s.split()) >= 5 and not re.search(r"\byou", s, re.I):
        return FACT, f"{subject}: {possessives(s, subject)}"
    return None


def about_them(s: str, subject: str) -> Found | None:
    """The people and things in their life, as they tell of them ("They were stoked for the
    dinosaur exhibit"): kept in the speaker's words, attributed to the speaker."""
    if (
        re.match(r"^(?:they|he|she|it|the kids|our)\b", s, re.I)
        and len(s.split()) >= 5
        and not re.search(r"\byou", s, re.I)
    ):
        return FACT, f"{subject}: {possessives(s, subject)}"
    return None
