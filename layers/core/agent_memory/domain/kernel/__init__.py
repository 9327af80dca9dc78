"""The shared kernel every capability uses: ids, errors, paging, optimistic retry, deferred
models, the foundation entities (agent, session, turn), events and their publisher, metrics
and the caller's principal. It imports no capability."""
