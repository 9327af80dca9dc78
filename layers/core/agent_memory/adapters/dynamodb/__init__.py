"""The Store port on DynamoDB (pynamodb), one table per deployment."""

from .store import DynamoStore

__all__ = ["DynamoStore"]
