"""How RuleBasedModel tells what holds beyond this conversation from what belongs to it alone.

A fact about the user or their world (who they are, their job, what they prefer, a convention
they keep) is proposed in agent scope, so every later session of the agent recalls it. What
the user ties to this conversation ("for this session", "right now", "today", "this week"),
or the task they are in the middle of, is proposed in session scope. The review clamps both to
what the manifest's scope.write allows (domain/extraction/pipeline.resolve_scope).
"""

from __future__ import annotations

import re

from agent_memory.domain.extraction.model import CandidateScope

_HERE = r"(?:session|conversation|chat|call|task|thread)"
# Words that tie a statement to the conversation or to a short stretch of time around it.
_SESSION_ONLY = re.compile(
    rf"\b(?:(?:for|in|during) (?:this|the rest of (?:this|the)) {_HERE}"
    rf"|this {_HERE}|until the end of (?:this|the) (?:{_HERE}|day)"
    r"|right now|for now|just now|at the moment|for the moment|for the time being|temporarily"
    r"|today|tonight|this (?:morning|afternoon|evening|week)"
    r"|the task at hand|currently (?:working on|debugging|fixing|investigating|looking into"
    r"|reviewing|testing)"
    r"|I'?m (?:debugging|troubleshooting|investigating)|I am (?:debugging|troubleshooting"
    r"|investigating))\b",
    re.I,
)
# The same words opening a sentence, where they would hide the statement that follows from
# the phrasing rules ("For this session, I want short answers").
_LEADING = re.compile(
    rf"^(?:(?:just )?(?:for|in|during) (?:this|the rest of (?:this|the)) {_HERE}"
    r"|right now|for now|at the moment|for the moment|for the time being)\s*[,:;-]?\s+",
    re.I,
)


def scope_of(sentence: str) -> CandidateScope:
    """Session scope for what the sentence ties to this conversation, agent scope otherwise."""
    return "session" if _SESSION_ONLY.search(sentence) else "agent"


def without_leading_marker(sentence: str) -> str:
    """The sentence without a session marker it opens with; its scope is read before."""
    rest = _LEADING.sub("", sentence, count=1)
    return rest[:1].upper() + rest[1:] if rest else sentence
