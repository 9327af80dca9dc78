"""What the services answer: typed results whose field aliases are the camelCase the API sends.
The routes dump them (by alias, as JSON), so a service never builds the JSON itself and there is
one model per shape; each capability keeps its own in its `answers.py`.

A model here forbids keys it does not declare, so an answer that grows a key fails its route's
tests instead of losing the key; a key set only sometimes is optional and left out of the JSON
while it is None (`exclude_if=unset`).
"""

from __future__ import annotations

from pydantic import ConfigDict

from .deferred import DeferredModel


def unset(value: object) -> bool:
    return value is None


class Answer(DeferredModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)
