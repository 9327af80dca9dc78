"""What names a bundle and bounds its items: read by the API's routes and the CLI without the
services that read and write the items (an import of those is a cold start's cost)."""

BUNDLE_FORMAT = "agent-memory-bundle"
BUNDLE_VERSION = 1
# Versions of one record or path an item carries: a DynamoDB transaction holds 100 items, and
# 25 versions of 100 KiB stay well inside a request of the API (10 MB) or a Lambda answer (6 MB).
VERSIONS_PER_ITEM = 25
ITEMS_PER_REQUEST = 500
