"""One JSON POST over urllib, for the adapters that call an HTTP service of the user's (a model
server, a reranker): the standard library only, so neither shape ships an HTTP client for it."""

from __future__ import annotations

import urllib.error
import urllib.request
from collections.abc import Callable

# (url, headers, body, timeout) -> (HTTP status, response body): what an adapter calls, and what
# its tests replace.
Transport = Callable[[str, dict[str, str], bytes, float], tuple[int, bytes]]


def urllib_post(
    url: str,
    headers: dict[str, str],
    body: bytes,
    timeout: float,
    unreachable: Callable[[Exception], Exception],
) -> tuple[int, bytes]:
    """The answer's status and body, an error status included; a service that cannot be
    reached (refused, timed out, no route) raises `unreachable(error)`."""
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310
            return int(response.status), bytes(response.read())
    except urllib.error.HTTPError as error:
        return int(error.code), bytes(error.read() or b"")
    except (urllib.error.URLError, TimeoutError, OSError) as error:
        raise unreachable(error) from error
