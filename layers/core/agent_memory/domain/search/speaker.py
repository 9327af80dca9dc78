"""Whose words a history query asks for: what the agent itself said, or (by default) what the
person it serves said.

A history search is mostly asked for what the user told the agent (a fact, a plan, a
preference); the agent's replies restate and elaborate it, and ranking.weigh_replies weighs them
a little lower for that. A query that asks about the agent's own earlier words (`what did you
recommend`, `the trail you suggested`, `in our previous chat`, `we talked about`) is the
exception: then replies are not weighed lower. English only, like when.py.
"""

from __future__ import annotations

import re

# Verbs of saying, as the agent's own past act: `you recommended`, `did you suggest`. Only a past
# form counts after a bare `you`: `can you suggest some activities` asks for something new.
_SAID = (
    r"(?:told|said|suggested|recommended|mentioned|gave|provided|listed|shared|explained"
    r"|described|wrote|proposed|advised|offered|showed|named|pointed)"
)
_SAY = (
    r"(?:tell|say|suggest|recommend|mention|give|provide|list|share|explain|describe|write"
    r"|propose|advise|offer|show|name|point)"
)
# Compiled on the first history search (re keeps it), not when the function starts.
_ASKS_FOR_REPLIES = (
    # `you recommended`, `you once mentioned`, `you'd suggested`, `did you suggest`
    rf"\byou(?:'d|\s+had)?\s+(?:\w+ly\s+|just\s+|once\s+)?{_SAID}\b"
    rf"|\bdid\s+you\s+{_SAY}\b"
    # `our previous chat`, `the last conversation`
    r"|\b(?:our|the)\s+(?:previous|last|earlier|past|other)\s+"
    r"(?:conversations?|chats?|discussions?|exchanges?|talks?)\b"
    # `we talked about`, `we discussed`
    r"|\bwe\s+(?:talked|discussed|spoke|chatted|went\s+over)\b"
)


def asks_for_replies(query: str) -> bool:
    """Whether `query` asks about what the agent itself said earlier."""
    return re.search(_ASKS_FOR_REPLIES, query, re.IGNORECASE) is not None
