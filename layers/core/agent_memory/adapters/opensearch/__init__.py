"""The SearchIndex port on OpenSearch Serverless: `OpenSearchIndex`, and `connect` for AOSS.

Importing this package does not import opensearch-py; building a client does.
"""

from agent_memory.adapters.opensearch.connection import connect
from agent_memory.adapters.opensearch.index import OpenSearchIndex

__all__ = ["OpenSearchIndex", "connect"]
