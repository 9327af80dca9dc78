"""One turn per call, for callers that have no turns of their own (an MCP client, Claude's
memory tool run by the Anthropic SDK, a LangGraph store).

Each call begins a turn in the caller's session, runs there, and commits at once, so a write
is visible to the next call and is recorded with its provenance (session, turn, execution). A
call the service refuses rolls its turn back: nothing of it is applied.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from ..client import ApiError, Client

logger = logging.getLogger(__name__)

T = TypeVar("T")


class TurnRunner:
    """Runs work in turns of one session of `agent_id`.

    `session_id`: the session to use; when it does not exist yet it is created with that id.
    Without it, a new session is created on the first call and kept for the runner's life."""

    def __init__(self, client: Client, agent_id: str, session_id: str | None = None) -> None:
        self.client = client
        self.agent_id = agent_id
        self._session_id = session_id
        self._ready = False
        self._lock = threading.Lock()

    @property
    def session_id(self) -> str:
        """The session the runner's turns belong to (made on first use)."""
        with self._lock:
            if not self._ready:
                self._session_id = self._open_session(self._session_id)
                self._ready = True
            assert self._session_id is not None
            return self._session_id

    def _open_session(self, wanted: str | None) -> str:
        if wanted is None:
            made: str = self.client.create_session(self.agent_id)["id"]
            logger.info("session created", extra={"agent_id": self.agent_id, "session_id": made})
            return made
        try:
            self.client.create_session(self.agent_id, id=wanted)
        except ApiError as exc:
            if exc.code == "session_id_forbidden":
                # A sessions:own token names no new session, but joins one its subject started
                # (any other answers 404, as a session that does not exist).
                self.client.get_session(self.agent_id, wanted)
            elif exc.status != 409:
                raise
            # Already there: a session named on the command line is joined, not refused.
        return wanted

    def run(self, work: Callable[[str, str], T], *, commit: bool = True) -> T:
        """Begin a turn, run `work(session_id, turn_id)`, then commit it (or, with `commit`
        false, roll it back: a read that must leave nothing). Whatever `work` raises, or a
        refused commit, rolls the turn back and is raised again."""
        session = self.session_id
        turn = self.client.begin_turn(self.agent_id, session)["id"]
        try:
            result = work(session, turn)
        except BaseException:
            self._roll_back(session, turn)
            raise
        if not commit:
            self._roll_back(session, turn)
            return result
        try:
            self.client.commit_turn(self.agent_id, session, turn)
        except ApiError:
            # A refused commit (such as 409 memory_conflict) applied nothing: end the turn.
            self._roll_back(session, turn)
            raise
        return result

    def call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """One native tool call in a turn of its own, committed at once."""
        return self.run(
            lambda session, turn: self.client.call_tool(
                self.agent_id, session, turn, name, **arguments
            )
        )

    def _roll_back(self, session: str, turn: str) -> None:
        try:
            self.client.rollback_turn(self.agent_id, session, turn)
        except ApiError as exc:
            # The turn is left open, never applied: the failure that led here matters more.
            logger.warning(
                "rollback failed",
                extra={"agent_id": self.agent_id, "turn_id": turn, "code": exc.code},
            )
