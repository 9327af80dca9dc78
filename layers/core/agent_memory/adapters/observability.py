"""Observability in Lambda: every module's logs as Powertools' JSON, counts as CloudWatch
metrics (EMF), and an optional X-Ray tracer.

Modules log through stdlib loggers (`logging.getLogger(__name__)`, details in `extra=`) and count
through the domain's Metrics port; nothing here is imported by the embedded shape. What a
function imports at cold start is only Powertools' Logger (which it had already): the metrics
module is imported at the first count and the tracer only when tracing is on, so neither adds to
the cold start (tests/unit/test_cold_start_imports.py)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from ..domain.kernel.metrics import Unit

if TYPE_CHECKING:
    from aws_lambda_powertools import Logger

logger = logging.getLogger(__name__)

# Every module's logger is a child of this one (logging.getLogger(__name__) in agent_memory.*).
PACKAGE_LOGGER = "agent_memory"

Handler = TypeVar("Handler", bound=Callable[..., Any])


def lambda_logger() -> Logger:
    """The function's Powertools Logger, made the handler of every agent_memory module's logs:
    they come out as its JSON lines, with the keys `inject_lambda_context` appends (the request
    id, the correlation id), as its own do. The handler sits on the package's logger, not on
    each module's (copy_config_to_registered_loggers would miss a module imported later)."""
    from aws_lambda_powertools import Logger

    powertools = Logger()
    powertools.append_keys(name="%(name)s")  # which module said it, as copy_config would add
    package = logging.getLogger(PACKAGE_LOGGER)
    package.handlers = [powertools.registered_handler]
    package.setLevel(powertools.log_level)
    # Lambda's runtime has a handler of its own on the root logger: passing records on to it
    # would write each line a second time, in its plain format.
    package.propagate = False
    return powertools


def traced(handler: Handler, enabled: bool) -> Handler:
    """`handler` under Powertools' Tracer (X-Ray segments for the invocation and the AWS calls
    it makes) when `enabled` (the template's Tracing parameter); else `handler` itself, and the
    tracer's SDK is never imported."""
    if not enabled:
        return handler
    from aws_lambda_powertools import Tracer

    wrapped: Handler = Tracer().capture_lambda_handler(handler)
    return wrapped


class PowertoolsMetrics:
    """The Metrics port as CloudWatch's Embedded Metric Format: each count is one EMF line on
    stdout with its own dimensions (Powertools' single_metric), so a tool call's name and
    outcome need no shared dimension set, and nothing waits for a flush at the handler's end."""

    def __init__(self, namespace: str) -> None:
        self._namespace = namespace

    def count(self, name: str, value: float = 1, unit: Unit = "Count", **dimensions: str) -> None:
        try:
            from aws_lambda_powertools.metrics import MetricUnit, single_metric

            with single_metric(
                name=name, unit=MetricUnit[unit], value=value, namespace=self._namespace
            ) as metric:
                for key, each in dimensions.items():
                    metric.add_dimension(name=key, value=each)
        except Exception:  # noqa: BLE001 - a count is bookkeeping: the request goes on
            logger.exception("metric not written", extra={"metric": name})
