"""What a `sessions:own` token may see of other subjects' sessions in agent-wide listings.

Such a token reaches only the sessions its subject started (`Principal.reach` answers any other
as if it did not exist). Agent-wide listings (the file memory versions, the model usage) name
the session, turn and execution each entry came from; for another subject's session those ids
are left out (null), so a token learns no session or turn id it could not reach. The entry
itself stays: what the agent's memory holds and what it spent are the agent's, not a session's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from ..domain.kernel.auth import Principal
from ..domain.kernel.models import AGENT_SESSION

T = TypeVar("T", bound=Any)
HIDDEN = {"session_id": None, "turn_id": None}


class OwnSessions:
    """Whether each session id is one `who` reaches, read once per request."""

    def __init__(self, store: Any, who: Principal, agent_id: str) -> None:
        self._store = store
        self._who = who
        self._agent_id = agent_id
        self._known: dict[str, bool] = {}

    def reaches(self, session_id: str | None) -> bool:
        if session_id is None or session_id == AGENT_SESSION or self._who.reads_every_session:
            return True
        if session_id not in self._known:
            session = self._store.get_session(self._who.tenant, self._agent_id, session_id)
            self._known[session_id] = (
                session is not None
                and session.owner is not None
                and session.owner == self._who.subject
            )
        return self._known[session_id]

    def shown(self, items: Sequence[T], *extra: str) -> list[T]:
        """`items` with the session, turn (and `extra`) ids of unreachable sessions nulled."""
        hidden = {**HIDDEN, **dict.fromkeys(extra)}
        return [
            item if self.reaches(item.session_id) else item.model_copy(update=hidden)
            for item in items
        ]
