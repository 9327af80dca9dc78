"""`GET /healthz`: whether the service answers, for a load balancer, a container's health check
or a newcomer's first curl. Public, as the OpenAPI document is: it needs no token and says
nothing of any tenant's data, only that the process answers and which version it runs. It
reads no store, so it stays cheap enough to poll; a store that is down shows on the first real
call."""

from __future__ import annotations

from typing import Literal

from aws_lambda_powertools.event_handler.api_gateway import Router
from pydantic import ConfigDict

from ... import __version__
from ...domain.kernel.deferred import DeferredModel

HEALTH_PATH = "/healthz"


class Health(DeferredModel):  # built on first use, not at the API function's cold start
    model_config = ConfigDict(extra="forbid")

    status: Literal["ok"]
    version: str


def health_router() -> Router:
    router = Router()

    @router.get(HEALTH_PATH, summary="Whether the service answers", tags=["health"])
    def health() -> Health:
        return Health(status="ok", version=__version__)

    return router
