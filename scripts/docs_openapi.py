"""A hook of the docs build (mkdocs.yml): the OpenAPI document, generated from the app.

The document is built from the code at every docs build, so the site's API reference is the API
the service serves (`GET /v1/openapi.json`), never a copy that drifts. It is written where the
OpenAPI page's `[OAD(...)]` tag reads it (`.docs-build/openapi.json`, git-ignored), rendered
there into static HTML by the neoteroi-mkdocs plugin (no script or CDN when the page is read),
and published beside the pages as `openapi.json`.
"""

from __future__ import annotations

import json
import logging
import tempfile
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

from agent_memory.api.app import Api
from agent_memory.bootstrap import build_services
from agent_memory.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
DOCUMENT = ROOT / ".docs-build" / "openapi.json"

logger = logging.getLogger("mkdocs.hooks.openapi")


def openapi_document() -> dict[str, Any]:
    """The document the embedded server serves, from services over a scratch data directory
    (no model, no token: the document does not depend on them)."""
    with tempfile.TemporaryDirectory(prefix="agent-memory-docs-") as data:
        settings = Settings(
            store="sqlite", data_dir=Path(data), embeddings="none", extraction_model="none"
        )
        services = build_services(settings)
        try:
            return Api(services).openapi()
        finally:
            services.close()


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    text = json.dumps(openapi_document(), indent=2, sort_keys=True) + "\n"
    DOCUMENT.parent.mkdir(exist_ok=True)
    # Written only when it changed, so `mkdocs serve` does not rebuild in a loop.
    if not DOCUMENT.exists() or DOCUMENT.read_text() != text:
        DOCUMENT.write_text(text)
        logger.info("OpenAPI document written to %s", DOCUMENT.relative_to(ROOT))
    return config


def on_files(files: Files, config: MkDocsConfig) -> Files:
    files.append(File.generated(config, "openapi.json", abs_src_path=str(DOCUMENT)))
    return files
