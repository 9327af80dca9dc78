"""One SQLite file in WAL mode: a connection per thread, versioned migrations."""

from __future__ import annotations

import hashlib
import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar, cast

from ...domain.kernel.errors import StorageDamaged, StorageUnavailable
from .faults import check_database_file, not_ours, start_refusal, storage_error
from .migrations import MIGRATIONS

logger = logging.getLogger(__name__)
T = TypeVar("T")


SYNCHRONOUS = ("FULL", "NORMAL")


class Database:
    """Hands each thread its own connection to one database file.

    Writers take the write lock up front (BEGIN IMMEDIATE), so a read-then-write transaction can
    never fail half-way on a lock upgrade; readers never block writers under WAL.

    Writers of this process queue for the file's lock on a mutex first. SQLite's busy handler
    polls a lock held by another connection, sleeping up to 100 ms between tries, so a writer
    could sleep on long after the lock was free, holding a server thread the while: with 16
    clients at once, writes' p99 was ~1.1 s and searches', whose threads they held, ~1.5 s
    (benchmarks/RESULTS.md, "Sixteen clients at once"). On the mutex a writer wakes as soon as
    the one before it is done; the busy handler is left to other processes on the same file.

    A fair queue makes a read-then-write attempt lose, though: it read, then waited behind
    writers that changed what it read. `exclusive` holds the mutex (re-entrant) over the whole
    attempt, its reads and its writes, so within this process such an attempt never loses.
    """

    def __init__(
        self, path: Path | str, synchronous: str = "FULL", busy_seconds: float = 30.0
    ) -> None:
        self.path = str(path)
        self.busy_seconds = busy_seconds  # how long a writer waits for the lock, then 503
        if synchronous not in SYNCHRONOUS:
            raise ValueError(f"synchronous is one of {', '.join(SYNCHRONOUS)}")
        self.synchronous = synchronous
        self._local = threading.local()
        self._connections: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        self._writer = threading.RLock()  # this process's writers, one at a time
        self._batch_end: list[Callable[[sqlite3.Connection], None]] = []
        self._damage_logged = False
        self._open()

    def _open(self) -> None:
        """Migrate the file, or refuse to start on it with one line naming it and the way out."""
        path = Path(self.path)
        if self.path != ":memory:":
            check_database_file(path)
        self._damage_logged = True  # a refusal to start is said once, by the command
        try:
            refusal = self._not_ours(path)
            if refusal is None:
                self.migrate()
        except sqlite3.Error as exc:  # read by not_ours, outside any transaction
            self.close()
            error = storage_error(exc)
            if error is None:
                raise
            if not isinstance(error, StorageDamaged):
                raise error from exc
            raise StorageDamaged(start_refusal(path, "the database file is damaged")) from exc
        except StorageDamaged as exc:
            self.close()
            raise StorageDamaged(start_refusal(path, "the database file is damaged")) from exc
        finally:
            self._damage_logged = False
        if refusal is not None:
            self.close()
            raise StorageDamaged(refusal)

    def _not_ours(self, path: Path) -> str | None:
        """Why not to open the file (another program's, a newer schema), asked on a connection
        of its own that writes nothing: ours switch the file to WAL, which rewrites its header."""
        if self.path == ":memory:" or not path.exists():
            return None
        probe = sqlite3.connect(self.path, isolation_level=None, timeout=self.busy_seconds)
        try:
            return not_ours(probe, path, len(MIGRATIONS))
        finally:
            probe.close()

    def _faults(self, exc: sqlite3.Error) -> StorageUnavailable | None:
        """The service's error for a SQLite failure (None: a bug, raised as it is). A damaged
        file is logged once, with its path: every request that meets it would say the same."""
        error = storage_error(exc)
        if isinstance(error, StorageDamaged) and not self._damage_logged:
            self._damage_logged = True
            logger.error(
                "database damaged: restore it from a backup",
                extra={"path": self.path, "sqlite_error": getattr(exc, "sqlite_errorname", "")},
            )
        return error

    def connection(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            try:
                conn = self._connect()
            except sqlite3.Error as exc:
                error = self._faults(exc)
                if error is None:
                    raise
                raise error from exc
            self._local.conn = conn
            with self._lock:
                self._connections.append(conn)
        return conn

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(
            self.path,
            isolation_level=None,
            check_same_thread=False,
            timeout=self.busy_seconds,
        )
        conn.row_factory = sqlite3.Row
        try:
            _wal(conn)
            # FULL: a commit survives power loss, not only a crash of the process (NORMAL, in
            # WAL mode, may lose the last commits to a power cut). The cost is in RESULTS.md.
            conn.execute(f"PRAGMA synchronous={self.synchronous}")
            conn.execute("PRAGMA foreign_keys=ON")
            conn.execute(f"PRAGMA busy_timeout={int(self.busy_seconds * 1000)}")
        except sqlite3.Error:
            conn.close()
            raise
        conn.create_function("owner_key", 3, owner_key, deterministic=True)
        return conn

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction: committed when the block ends, rolled back if it raises.
        Inside a `batch`, a savepoint of the batch's transaction: released when the block ends,
        rolled back alone if it raises."""
        conn = self.connection()
        if getattr(self._local, "batch", False):
            with self._savepoint(conn):
                yield conn
            return
        with self.exclusive(), self._transaction(conn):
            yield conn

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        """No other writer of this process writes until the block ends (re-entrant: the block
        writes as usual). For a read-then-write attempt: what it read stays as read."""
        if not self._writer.acquire(timeout=self.busy_seconds):
            raise StorageUnavailable("the database is busy; try again")
        try:
            yield
        finally:
            self._writer.release()

    @contextmanager
    def _transaction(self, conn: sqlite3.Connection) -> Iterator[None]:
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise StorageUnavailable("the database is busy; try again") from exc
        try:
            yield
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            # Locked past the busy timeout, disk full, I/O error, a damaged page: nothing was
            # written. SQLite may have rolled the transaction back itself (it does on a full
            # disk); a second ROLLBACK would fail and hide why.
            _roll_back(conn)
            error = self._faults(exc)
            if error is None:
                raise
            raise error from exc
        except BaseException:
            _roll_back(conn)
            raise

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Hold one write transaction for this thread's writes until the block ends: each
        `write` in it is a savepoint. Many small writes then cost one commit (and one words
        index segment) instead of one each; nothing is visible to other connections, or
        durable, before the block ends. Rolled back whole if the block raises."""
        if getattr(self._local, "batch", False):
            yield  # already in one
            return
        with self.write() as conn:
            self._local.batch = True
            self._local.memo = {}
            try:
                yield
            finally:
                self._local.batch = False
                self._local.memo = None
            for finish in self._batch_end:
                finish(conn)  # in the batch's transaction, outside any savepoint

    def in_batch(self) -> bool:
        """Whether this thread's writes are savepoints of a batch's transaction."""
        return bool(getattr(self._local, "batch", False))

    def at_batch_end(self, finish: Callable[[sqlite3.Connection], None]) -> None:
        """Have `finish` run at the end of every batch that did not fail, in its transaction
        before it commits: writes a batch holds back (the words index's) are made there."""
        if finish not in self._batch_end:  # one index or two on the file: run it once
            self._batch_end.append(finish)

    def batch_memo(self) -> dict[object, object] | None:
        """Rows read in this thread's batch, kept until it ends (None outside one). The batch
        holds the file's write lock, so a row only its own writes can change is read once; the
        writes that change one clear it (`forget_memo`) or put what they wrote in its place, and
        a savepoint rolled back clears it all."""
        memo: dict[object, object] | None = getattr(self._local, "memo", None)
        return memo

    def memoized(self, key: tuple[object, ...], read: Callable[[], T]) -> T:
        """`read()`, once a batch for `key` (batch_memo); every time outside a batch."""
        memo = self.batch_memo()
        if memo is None:
            return read()
        if key not in memo:
            memo[key] = read()
        return cast(T, memo[key])

    def remember(self, key: tuple[object, ...], value: object) -> None:
        """In a batch, what a write just made the row `key` names (what reading it would give)."""
        memo = self.batch_memo()
        if memo is not None:
            memo[key] = value

    def forget(self, key: tuple[object, ...]) -> object | None:
        """In a batch, drop what it holds for `key` (a write changed that row); what it held."""
        memo = self.batch_memo()
        return memo.pop(key, None) if memo is not None else None

    def forget_memo(self) -> None:
        memo = self.batch_memo()
        if memo is not None:
            memo.clear()

    @contextmanager
    def _savepoint(self, conn: sqlite3.Connection) -> Iterator[None]:
        depth = getattr(self._local, "savepoints", 0) + 1
        self._local.savepoints = depth
        name = f"w{depth}"
        conn.execute(f"SAVEPOINT {name}")
        try:
            yield
        except sqlite3.Error as exc:
            self._roll_back_to(conn, name)
            error = self._faults(exc)
            if error is None:
                raise
            raise error from exc
        except BaseException:
            self._roll_back_to(conn, name)
            raise
        else:
            conn.execute(f"RELEASE {name}")
        finally:
            self._local.savepoints = depth - 1

    def _roll_back_to(self, conn: sqlite3.Connection, name: str) -> None:
        self.forget_memo()  # it may hold a row the savepoint wrote
        if not conn.in_transaction:
            return  # SQLite rolled the whole batch back (a full disk); the batch's end says so
        conn.execute(f"ROLLBACK TO {name}")
        conn.execute(f"RELEASE {name}")

    def read(self) -> sqlite3.Connection:
        return self.connection()

    def migrate(self) -> None:
        with self.write() as conn:
            conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations ("
                " version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP)"
            )
            applied = {row[0] for row in conn.execute("SELECT version FROM schema_migrations")}
            done = []
            for version, statements in enumerate(MIGRATIONS, start=1):
                if version in applied:
                    continue
                for statement in statements:
                    if callable(statement):
                        statement(conn)
                    else:
                        conn.execute(statement)
                conn.execute("INSERT INTO schema_migrations (version) VALUES (?)", (version,))
                done.append(version)
        # One line, not one a migration: a first start applies them all, and the lines after
        # (the address, the token) are what its reader is looking for.
        if done:
            which = str(done[0]) if len(done) == 1 else f"{done[0]}-{done[-1]}"
            logger.info("schema migrations %s applied", which, extra={"versions": done})

    def close(self) -> None:
        with self._lock:
            for conn in self._connections:
                conn.close()
            self._connections.clear()
        self._local = threading.local()


def _roll_back(conn: sqlite3.Connection) -> None:
    if conn.in_transaction:  # not when SQLite has rolled it back already
        conn.execute("ROLLBACK")


def owner_key(tenant: str, agent_id: str, kind: str) -> str:
    """One word naming whose documents an FTS5 row belongs to (an agent's records, files or
    events): the words table is matched on it, so a query walks one agent's documents only."""
    digest = hashlib.sha256(f"{tenant}\0{agent_id}\0{kind}".encode()).hexdigest()[:32]
    return f"o{digest}"


@contextmanager
def lost_race(message: str) -> Iterator[None]:
    """A unique or foreign key refusing a write is a failed precondition, as a condition is."""
    try:
        yield
    except sqlite3.IntegrityError as exc:
        from ...domain.kernel.errors import PreconditionFailed

        raise PreconditionFailed(message) from exc


def _wal(conn: sqlite3.Connection, within: float = 30.0) -> None:
    """Switch the file to WAL. The switch waits for no busy timeout: processes opening a new
    file at once are refused it ("database is locked") until one has made it, so try again."""
    deadline = time.monotonic() + within
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def turn_key(tenant: str, agent_id: str, session_id: str, turn_id: str) -> tuple[str, ...]:
    """A turn's key in a batch's memo (Database.batch_memo), where SqliteStore keeps the turns
    a batch read or wrote."""
    return ("turn", tenant, agent_id, session_id, turn_id)


def require_open_turn(
    db: Database,
    conn: sqlite3.Connection,
    tenant: str,
    agent_id: str,
    session_id: str,
    turn_id: str,
) -> None:
    """In the caller's write transaction: the turn exists and is still open, or nothing is
    written (a turn that ended meanwhile keeps nothing more). In a batch, a turn its memo holds
    is read from there: every write of a turn in the batch puts the turn as it wrote it there
    (SqliteStore.begin_turn, end_turn), and no other connection writes while the batch runs."""
    from ...domain.kernel.errors import PreconditionFailed
    from ...domain.kernel.models import Turn, TurnStatus

    memo = db.batch_memo()
    held = memo.get(turn_key(tenant, agent_id, session_id, turn_id)) if memo else None
    if isinstance(held, Turn):
        status: str | None = held.status.value
    else:
        row = conn.execute(
            "SELECT status FROM turns WHERE tenant = ? AND agent_id = ? AND session_id = ?"
            " AND turn_id = ?",
            (tenant, agent_id, session_id, turn_id),
        ).fetchone()
        status = row[0] if row else None
    if status != TurnStatus.OPEN.value:
        raise PreconditionFailed(f"turn {turn_id!r} is gone or not open")
