"""The constraints the routes enforce, stated in the OpenAPI document's path parameters.

The routes take their path parameters as plain strings and validate them in the domain (so a
malformed id is the domain's own 400 `invalid_agent_id`, not the resolver's generic one); the
document would otherwise call any string valid. These are the same rules, from the same
constants, written as JSON Schema.
"""

from __future__ import annotations

from typing import Any

from ..domain.files.paths import MAX_PATH_CHARS
from ..domain.kernel.ids import AGENT_ID_MAX_LENGTH, AGENT_ID_PATTERN, OPAQUE_ID_PATTERN

TOOL_NAMES = [
    "add_memory",
    "read_memory",
    "delete_memory",
    "search_memory",
    "memory",
    "search_history",
]
_RELATIVE_MAX = MAX_PATH_CHARS - len("/memories/")
# A memory is a file ending in `.md`; a folder (DELETE takes either) is a path that does not.
_FILE = {"pattern": r"^([^/]+/)*[^/]+\.md$", "minLength": 4, "maxLength": _RELATIVE_MAX}
_FILE_OR_FOLDER = {"pattern": r"^[^/]+(/[^/]+)*/?$", "minLength": 1, "maxLength": _RELATIVE_MAX}
_OPAQUE = {"pattern": OPAQUE_ID_PATTERN, "minLength": 1, "maxLength": 128}
PARAMETERS: dict[str, dict[str, Any]] = {
    "agentId": {"pattern": AGENT_ID_PATTERN, "minLength": 1, "maxLength": AGENT_ID_MAX_LENGTH},
    "session_id": _OPAQUE,
    "turn_id": _OPAQUE,
    "record_id": _OPAQUE,
    "version_id": _OPAQUE,
    "name": {"enum": TOOL_NAMES},
}


def state_constraints(method: str, operation: dict[str, Any]) -> None:
    """Write the rules of `operation`'s path parameters into their schemas (in place), and
    say that a 204 has no body (the resolver gives it the route's `Response[None]` as JSON)."""
    no_content = operation.get("responses", {}).get("204")
    if no_content is not None:
        no_content.pop("content", None)
    for parameter in operation.get("parameters", []):
        if parameter.get("in") != "path":
            continue
        name = parameter.get("name")
        if name == "path":
            rule = _FILE_OR_FOLDER if method == "delete" else _FILE
        else:
            rule = PARAMETERS.get(str(name), {})
        parameter.setdefault("schema", {}).update(rule)
