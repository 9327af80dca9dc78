"""Which turn's review to run: what the embedded worker's queue and the state machine carry."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from ..kernel.errors import InvalidRequest
from ..kernel.models import Turn


@dataclass(frozen=True)
class ExtractionJob:
    """Which turn's review to run: what the worker's queue and the state machine carry."""

    tenant: str
    agent_id: str
    session_id: str
    turn_id: str
    run: int = 0
    """0 for the review a commit queued; n for its n-th re-run after it failed."""
    born: str = ""
    """When the turn began (ISO 8601): ids a caller chose come back after their agent is
    deleted and made again, and the new turn's review is another run than the old one's."""

    @classmethod
    def of(cls, turn: Turn) -> ExtractionJob:
        run = turn.extraction.runs if turn.extraction else 0
        born = turn.created_at.isoformat()
        return cls(turn.tenant, turn.agent_id, turn.session_id, turn.id, run, born)

    def is_for(self, turn: Turn) -> bool:
        """Whether the job is this turn's, not a namesake's its agent had before a delete."""
        return not self.born or self.born == turn.created_at.isoformat()

    @classmethod
    def from_dict(cls, data: Any) -> ExtractionJob:
        if not isinstance(data, dict):
            raise InvalidRequest("an extraction job is an object", code="invalid_job")
        try:
            return cls(
                str(data["tenant"]),
                str(data["agentId"]),
                str(data["sessionId"]),
                str(data["turnId"]),
                int(data.get("run") or 0),
                str(data.get("born") or ""),
            )
        except (KeyError, ValueError) as exc:
            raise InvalidRequest(f"an extraction job needs {exc}", code="invalid_job") from exc

    def to_dict(self) -> dict[str, Any]:
        return {
            "tenant": self.tenant,
            "agentId": self.agent_id,
            "sessionId": self.session_id,
            "turnId": self.turn_id,
            "run": self.run,
            **({"born": self.born} if self.born else {}),
        }

    @property
    def name(self) -> str:
        """A name unique to the turn and run (Step Functions execution names: 80 characters of
        [A-Za-z0-9_-]; turn ids are unique within their session, sessions within their agent),
        so a second start of one run is a no-op and a re-run starts afresh."""
        seed = f"{self.tenant}\0{self.agent_id}\0{self.session_id}\0{self.turn_id}"
        if self.born:
            seed += f"\0{self.born}"
        digest = hashlib.sha256(seed.encode()).hexdigest()[:36]
        suffix = f"-r{self.run}" if self.run else ""
        safe = "".join(c if c.isalnum() or c in "-_" else "-" for c in self.turn_id)
        return f"{safe[: 79 - len(digest) - len(suffix)]}-{digest}{suffix}"
