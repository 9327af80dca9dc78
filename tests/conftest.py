"""Set-up shared by every test directory."""

from __future__ import annotations

import functools

import botocore.loaders
import botocore.session

# Each DynamoDB test under moto makes a new pynamodb connection, so a new botocore session, and
# every session read botocore's service models from disk again: most of such a test's set-up.
# One loader for the run reads each model once; the models are read-only data that every client
# of one session shares already.
botocore.session.create_loader = functools.cache(botocore.loaders.create_loader)
