"""Print the OpenAPI document the embedded server serves (`GET /v1/openapi.json`), built from
the app in this process over a scratch data directory, as the docs build does: no model and no
token, for the document depends on neither. `scripts/types.mjs` runs it with the project's
Python; its keys are sorted so a diff shows only what changed."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from agent_memory.api.app import Api
from agent_memory.bootstrap import build_services
from agent_memory.settings import Settings


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="agent-memory-openapi-") as data:
        settings = Settings(
            store="sqlite", data_dir=Path(data), embeddings="none", extraction_model="none"
        )
        services = build_services(settings)
        try:
            document = Api(services).openapi()
        finally:
            services.close()
    sys.stdout.write(json.dumps(document, indent=2, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
