"""Helpers the LLM adapters share: parsing a structured reply and estimating tokens."""

from __future__ import annotations

import json
import re
from typing import Any

_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.S | re.I)


def loads_reply(text: str) -> Any:
    """The JSON of a model's reply; a ```json fence around it (a habit of local models) is
    tolerated. Raises ValueError when it is not JSON."""
    m = _FENCE.match(text)
    return json.loads(m[1] if m else text)


def estimate_tokens(text: str) -> int:
    return max(1, (len(text) + 3) // 4)
