from .store import SqliteStore

__all__ = ["SqliteStore"]
