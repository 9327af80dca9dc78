"""The web console's static files: `GET /` (the page) and `GET /console/<name>` (its script and
styles), built from web/ into agent_memory/console and served from the installed package by both
shapes, so `make serve` needs no Node and the page loads nothing from elsewhere.

They are public, as the OpenAPI document is: the page holds no data, and every call it makes
carries the token the user pasted. The files are read on the first request, not at import: the
API function's cold start does not pay for them.
"""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass
from functools import cache
from importlib import resources

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router

logger = logging.getLogger(__name__)

CONSOLE_PREFIX = "/console/"
TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
}
# Memories are written by agents and rendered as Markdown: beside the sanitiser in the page, the
# policy lets nothing run or load but the console's own files (no inline script, no remote image).
POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)


@dataclass(frozen=True)
class Asset:
    body: str
    content_type: str
    etag: str


@cache
def assets() -> dict[str, Asset]:
    """The built files by name; empty when the package was installed without them."""
    root = resources.files("agent_memory") / "console"
    found: dict[str, Asset] = {}
    if not root.is_dir():
        logger.warning("console not built", extra={"looked_in": str(root)})
        return found
    for item in root.iterdir():
        suffix = "." + item.name.rpartition(".")[2]
        if item.is_file() and suffix in TYPES:
            body = item.read_text(encoding="utf-8")
            digest = hashlib.sha256(body.encode()).hexdigest()[:32]
            found[item.name] = Asset(body, TYPES[suffix], f'"{digest}"')
    return found


def is_console_path(path: str) -> bool:
    return path == "/" or path.startswith(CONSOLE_PREFIX)


def console_router() -> Router:
    router = Router()

    def serve(name: str) -> Response[str]:
        asset = assets().get(name)
        if asset is None:
            body = {"error": {"code": "not_found", "message": f"the console has no file {name}"}}
            return Response(404, "application/json", json.dumps(body))
        headers = {
            "ETag": asset.etag,
            # File names carry no hash: a browser asks again each time, and an unchanged file
            # is a 304 without its body.
            "Cache-Control": "no-cache",
            "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "no-referrer",
            "Content-Security-Policy": POLICY,
        }
        if router.current_event.headers.get("if-none-match") == asset.etag:
            return Response(304, asset.content_type, "", headers)
        return Response(200, asset.content_type, asset.body, headers)

    @router.get("/", include_in_schema=False)
    def page() -> Response[str]:
        return serve("index.html")

    @router.get(CONSOLE_PREFIX + "<name>", include_in_schema=False)
    def file(name: str) -> Response[str]:
        # Only the built files by their exact names: `name` is one path segment, never a path.
        return serve(name)

    return router
