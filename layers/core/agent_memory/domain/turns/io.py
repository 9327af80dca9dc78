"""What every native tool's input and output share: an input refuses unknown keys, an output
dumps to the API's camelCase without the optional parts it left unset.

Each capability keeps its tools' models beside its tools (records/io.py, files/io.py,
history/io.py, tools/io.py); the tool registry (`ToolService.register`) validates a call's
arguments against the input model once and hands the tool the model."""

from __future__ import annotations

import json
from typing import Any

from pydantic import (
    ConfigDict,
)

from ..kernel.deferred import DeferredModel


class ToolIn(DeferredModel):
    model_config = ConfigDict(extra="forbid")


class ToolOut(DeferredModel):
    """A tool's output. Optional parts appear in the JSON only when the tool set them."""

    model_config = ConfigDict(populate_by_name=True)

    def dump(self) -> dict[str, Any]:
        """The API form: camelCase, JSON types, without the optional parts left unset."""
        full: dict[str, Any] = json.loads(self.model_dump_json(by_alias=True))
        fields = type(self).model_fields
        kept = {
            field.alias or name
            for name, field in fields.items()
            if name in self.model_fields_set or field.default is not None
        }
        return {key: value for key, value in full.items() if key in kept}
