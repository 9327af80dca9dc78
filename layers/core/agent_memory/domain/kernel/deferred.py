"""The base of every model of ours: its validator is built when it is first used, not when its
class is made.

The API function imports about 130 models at cold start and a request uses a few of them (a
GET of an agent: the agent and its manifest; a tool call: that tool's input and output). Built
at class creation (pydantic's default), each costs its schema and validator at `import app`
whether or not any request of that instance needs it; deferred, a route pays for its own models
on its first use, once per process. pydantic (>= 2.14.4, pyproject.toml) rebuilds a deferred
model under one lock, so the embedded server's first concurrent requests build it once and never
see it half made. `tests/unit/test_models_deferred.py` builds every model, so a schema that
cannot be built fails there and not on a route's first request.
"""

from pydantic import BaseModel, ConfigDict


class DeferredModel(BaseModel):
    """pydantic's BaseModel, built on first use. A subclass's own `model_config` is merged with
    this one, so it keeps `defer_build` unless it says otherwise."""

    model_config = ConfigDict(defer_build=True)
