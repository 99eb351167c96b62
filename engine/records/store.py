"""codex-deck's own record on disk: conversations, their Codex threads, what was sent, requests
and traces, in SQLite.

Writes are queued without blocking and committed in batches on a worker thread, at most
every WRITE_PACE_SECONDS (a write queued under a key replaces the one queued before it under
that key: a streaming answer's text so far); `flush()` waits until everything queued so far is
on disk (used before a message is sent, so the store always knows a message may have gone
out). When the disk refuses a write, the store says so
once through `on_problem`, keeps the refused writes (up to a bound) and tries them again with
the next ones; the app keeps working from memory meanwhile.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import anyio
import msgspec
import platformdirs

from engine.errors import StoreError

MAX_PENDING_WRITES = 50_000
"""Writes kept in memory while the disk refuses them (the oldest go first past this)."""
WRITE_PACE_SECONDS = 0.2
"""The least time between two batches committed in the background (each is a sync to disk)."""
SCHEMA_VERSION = 6
MIGRATIONS: tuple[str, ...] = (
    # 1: conversations, their threads, submissions and requests.
    """
    CREATE TABLE conversations (
        id TEXT PRIMARY KEY,
        title TEXT NOT NULL,
        cwd TEXT NOT NULL,
        thread_id TEXT,
        generation INTEGER NOT NULL,
        archived INTEGER NOT NULL DEFAULT 0,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL
    );
    CREATE TABLE threads (
        conversation_id TEXT NOT NULL REFERENCES conversations(id),
        generation INTEGER NOT NULL,
        thread_id TEXT NOT NULL,
        created_at REAL NOT NULL,
        PRIMARY KEY (conversation_id, generation)
    );
    CREATE TABLE submissions (
        id TEXT PRIMARY KEY,
        conversation_id TEXT NOT NULL REFERENCES conversations(id),
        generation INTEGER NOT NULL,
        text TEXT NOT NULL,
        mode TEXT NOT NULL,
        state TEXT NOT NULL,
        turn_id TEXT,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL
    );
    CREATE INDEX submissions_by_conversation ON submissions (conversation_id, created_at);
    CREATE TABLE interactions (
        id TEXT PRIMARY KEY,
        conversation_id TEXT,
        kind TEXT NOT NULL,
        state TEXT NOT NULL,
        decision TEXT,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL
    );
    """,
    # 2: the per-conversation settings that outlive a restart, and the trace.
    """
    ALTER TABLE conversations ADD COLUMN plan_mode INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE conversations ADD COLUMN approval_policy TEXT;
    ALTER TABLE conversations ADD COLUMN sandbox TEXT;
    CREATE TABLE trace (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        conversation_id TEXT NOT NULL,
        turn_id TEXT,
        at REAL NOT NULL,
        event TEXT NOT NULL
    );
    CREATE INDEX trace_by_turn ON trace (conversation_id, turn_id, seq);
    """,
    # 3: the model and reasoning effort chosen with /model.
    """
    ALTER TABLE conversations ADD COLUMN model TEXT;
    ALTER TABLE conversations ADD COLUMN reasoning_effort TEXT;
    """,
    # 4: the images sent with a message (a JSON list of paths).
    """
    ALTER TABLE submissions ADD COLUMN images TEXT NOT NULL DEFAULT '[]';
    """,
    # 5: whether a message's text held a secret, kept as [redacted] (so it cannot be re-sent).
    """
    ALTER TABLE submissions ADD COLUMN secret INTEGER NOT NULL DEFAULT 0;
    """,
    # 6: what had streamed of an answer that has not completed (it was cut off, or is still
    # streaming): shown, marked cut off, when the turn is read back after a crash.
    """
    CREATE TABLE partials (
        conversation_id TEXT NOT NULL,
        turn_id TEXT NOT NULL,
        item_id TEXT NOT NULL,
        text TEXT NOT NULL,
        at REAL NOT NULL,
        PRIMARY KEY (conversation_id, item_id)
    );
    """,
)
assert len(MIGRATIONS) == SCHEMA_VERSION


def default_path() -> Path:
    return platformdirs.user_data_path("codex-deck") / "codex-deck.sqlite3"


class StoredConversation(msgspec.Struct, frozen=True):
    id: str
    title: str
    cwd: str
    thread_id: str | None
    generation: int
    archived: bool
    plan_mode: bool
    approval_policy: str | None
    sandbox: str | None
    created_at: float
    model: str | None = None
    reasoning_effort: str | None = None


class StoredSubmission(msgspec.Struct, frozen=True):
    id: str
    conversation_id: str
    generation: int
    text: str
    mode: str
    state: str
    turn_id: str | None
    created_at: float
    images: tuple[str, ...] = ()
    secret: bool = False
    """The text held a secret, which the store keeps as [redacted]."""


class Loaded(msgspec.Struct, frozen=True):
    """What the store held at start-up, oldest first."""

    conversations: list[StoredConversation]
    submissions: list[StoredSubmission]
    """Only those still queued or whose outcome the store does not know (sent, unknown)."""
    unanswered: dict[str, int] = msgspec.field(default_factory=dict)
    """By conversation: requests that were still waiting for the user's answer when
    codex-deck stopped (it crashed, or was killed)."""


Write = tuple[str, Sequence[Any]]


class Store:
    """Open with `Store.open(path)` (blocking; run it in a thread)."""

    def __init__(self, connection: sqlite3.Connection, path: Path, moved_aside: Path | None):
        self.path = path
        self.moved_aside = moved_aside
        """Where an unreadable store was moved at start-up (it is never deleted)."""
        self.problem: str | None = None
        """Why the last write failed, while the disk refuses writes."""
        self.on_problem: Callable[[str | None], None] = lambda _: None
        """Told when writes start failing (with why) and when they work again (None)."""
        self._connection = connection
        self._pending: list[Write] = []
        self._latest: dict[tuple[str, ...], Callable[[], Write]] = {}
        self._wake = anyio.Event()
        self._lock = anyio.Lock()

    @classmethod
    def open(cls, path: Path) -> Store:
        """Open (or create) the store at `path`, upgrading its schema.

        A file that is not a readable database is moved aside and a new one started.

        Raises:
            StoreError: the store is newer than this codex-deck, or cannot be created.
        """
        try:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            os.close(os.open(path, os.O_CREAT | os.O_RDWR, 0o600))
            os.chmod(path, 0o600)
        except OSError as error:
            raise StoreError(f"cannot create the store at {path}: {error.strerror}") from None
        moved_aside = None
        try:
            connection = _connect(path)
        except sqlite3.DatabaseError:
            moved_aside = path.with_name(f"{path.name}.unreadable-{time.strftime('%Y%m%d-%H%M%S')}")
            path.rename(moved_aside)
            for suffix in ("-wal", "-shm"):
                side = path.with_name(path.name + suffix)
                if side.exists():
                    side.rename(moved_aside.with_name(moved_aside.name + suffix))
            os.close(os.open(path, os.O_CREAT | os.O_RDWR, 0o600))
            connection = _connect(path)
        version = connection.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            connection.close()
            raise StoreError(
                f"the store at {path} was written by a newer codex-deck (schema {version}; "
                f"this one knows up to {SCHEMA_VERSION}). Update codex-deck, or point "
                "[store] path at another file."
            )
        migrate(connection, SCHEMA_VERSION)
        return cls(connection, path, moved_aside)

    def load(self) -> Loaded:
        """Conversations and the submissions recovery must look at (blocking)."""
        rows = self._connection.execute(
            f"SELECT {CONVERSATION_COLUMNS} FROM conversations ORDER BY created_at"
        ).fetchall()
        conversations = [_stored_conversation(row) for row in rows]
        rows = self._connection.execute(
            "SELECT id, conversation_id, generation, text, mode, state, turn_id, created_at, "
            "images, secret FROM submissions WHERE state IN ('queued', 'sent', 'unknown') "
            "ORDER BY created_at, rowid"
        ).fetchall()
        submissions = [
            StoredSubmission(
                id=r[0],
                conversation_id=r[1],
                generation=r[2],
                text=r[3],
                mode=r[4],
                state=r[5],
                turn_id=r[6],
                created_at=r[7],
                images=_paths(r[8]),
                secret=bool(r[9]),
            )
            for r in rows
        ]
        unanswered = self._connection.execute(
            "SELECT conversation_id, COUNT(*) FROM interactions WHERE state = 'pending' "
            "GROUP BY conversation_id"
        ).fetchall()
        return Loaded(conversations, submissions, {r[0]: r[1] for r in unanswered})

    def conversation_of_thread(self, thread_id: str) -> StoredConversation | None:
        """The conversation whose thread is `thread_id` now, if the store has it (another
        app on the same store may have written it since this one opened) (blocking)."""
        row = self._connection.execute(
            f"SELECT {CONVERSATION_COLUMNS} FROM conversations WHERE thread_id = ?", (thread_id,)
        ).fetchone()
        return None if row is None else _stored_conversation(row)

    def threads(self, conversation_id: str) -> dict[int, str]:
        """Every Codex thread the conversation had, by generation (blocking)."""
        rows = self._connection.execute(
            "SELECT generation, thread_id FROM threads WHERE conversation_id = ?",
            (conversation_id,),
        ).fetchall()
        return {r[0]: r[1] for r in rows}

    def submission_state(self, submission_id: str) -> str | None:
        """The stored state of one submission (blocking)."""
        row = self._connection.execute(
            "SELECT state FROM submissions WHERE id = ?", (submission_id,)
        ).fetchone()
        return row[0] if row is not None else None

    def partials(self, conversation_id: str) -> list[tuple[str, str, str]]:
        """What had streamed of the conversation's answers that never completed, oldest
        first: (turn id, item id, text) (blocking)."""
        rows = self._connection.execute(
            "SELECT turn_id, item_id, text FROM partials WHERE conversation_id = ? ORDER BY at",
            (conversation_id,),
        ).fetchall()
        return [(r[0], r[1], r[2]) for r in rows]

    def trace_rows(self, conversation_id: str) -> list[tuple[str | None, str]]:
        """The stored trace of a conversation, oldest first: (turn id, event as JSON)
        (blocking)."""
        rows = self._connection.execute(
            "SELECT turn_id, event FROM trace WHERE conversation_id = ? ORDER BY seq",
            (conversation_id,),
        ).fetchall()
        return [(r[0], r[1]) for r in rows]

    def trace_seqs(self) -> tuple[int, int]:
        """The first and the last seq of the trace, (0, 0) when it is empty (blocking)."""
        low, high = self._connection.execute("SELECT MIN(seq), MAX(seq) FROM trace").fetchone()
        return low or 0, high or 0

    def archived_items_like(
        self, pattern: str, limit: int, seqs: tuple[int, int]
    ) -> list[tuple[int, str, str, str | None, str]]:
        """Completed items and side answers of archived conversations, among the trace's
        rows whose seq is in `seqs` (both ends included), whose stored JSON is LIKE `pattern`
        (escape `\\`), newest first: (seq, conversation id, title, thread id, event as JSON)
        (blocking).

        Read on a connection of its own, so that parts of the trace can be read at once, each
        in a thread of its own.
        """
        reader = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            rows = reader.execute(
                "SELECT t.seq, t.conversation_id, c.title, c.thread_id, t.event FROM trace t "
                "JOIN conversations c ON c.id = t.conversation_id "
                "WHERE t.seq BETWEEN ? AND ? AND c.archived = 1 "
                'AND (t.event LIKE \'{"type": "ItemCompleted"%\' '
                'OR t.event LIKE \'{"type": "SideChatAnswered"%\') '
                "AND t.event LIKE ? ESCAPE '\\' ORDER BY t.seq DESC LIMIT ?",
                (*seqs, pattern, limit),
            ).fetchall()
        finally:
            reader.close()
        return [(r[0], r[1], r[2], r[3], r[4]) for r in rows]

    def put(self, sql: str, params: Sequence[Any]) -> None:
        """Queue a write; it is committed soon, or at the next `flush()`."""
        self._pending.append((sql, params))
        self._wake.set()

    def put_latest(self, key: tuple[str, ...], write: Callable[[], Write]) -> None:
        """Queue a write that replaces the one still queued under `key` (committed after the
        writes queued before it); `write()` makes it when the batch is committed, so what
        changes often is put together only as often as it is written."""
        self._latest.pop(key, None)
        self._latest[key] = write
        self._wake.set()

    async def flush(self) -> bool:
        """Commit everything queued so far; False if the disk refused it."""
        async with self._lock:
            batch = [*self._pending, *(write() for write in self._latest.values())]
            self._pending = []
            self._latest = {}
            if not batch:
                return self.problem is None
            try:
                await anyio.to_thread.run_sync(self._write, batch)
            except sqlite3.Error as error:
                kept = batch + self._pending
                self._pending = kept[-MAX_PENDING_WRITES:]
                self._failed(str(error))
                return False
            if self.problem is not None:
                self.problem = None
                self.on_problem(None)
            return True

    async def run(self) -> None:
        """Commit queued writes as they come, until cancelled."""
        while True:
            await self._wake.wait()
            self._wake = anyio.Event()
            await self.flush()
            await anyio.sleep(WRITE_PACE_SECONDS)

    def close(self) -> None:
        with contextlib.suppress(sqlite3.Error):
            self._write([*self._pending, *(write() for write in self._latest.values())])
        self._pending, self._latest = [], {}
        self._connection.close()

    def _write(self, batch: list[Write]) -> None:
        with self._connection:
            for sql, params in batch:
                self._connection.execute(sql, params)

    def _failed(self, why: str) -> None:
        first = self.problem is None
        self.problem = why
        if first:
            self.on_problem(why)


CONVERSATION_COLUMNS = (
    "id, title, cwd, thread_id, generation, archived, plan_mode, approval_policy, sandbox, "
    "created_at, model, reasoning_effort"
)


def _stored_conversation(row: Sequence[Any]) -> StoredConversation:
    return StoredConversation(
        id=row[0],
        title=row[1],
        cwd=row[2],
        thread_id=row[3],
        generation=row[4],
        archived=bool(row[5]),
        plan_mode=bool(row[6]),
        approval_policy=row[7],
        sandbox=row[8],
        created_at=row[9],
        model=row[10],
        reasoning_effort=row[11],
    )


def _paths(stored: str) -> tuple[str, ...]:
    try:
        paths = json.loads(stored)
    except json.JSONDecodeError:
        return ()
    return tuple(p for p in paths if isinstance(p, str)) if isinstance(paths, list) else ()


def _connect(path: Path) -> sqlite3.Connection:
    """Open and check the database; raises sqlite3.DatabaseError when it is not one."""
    connection = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
    try:
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA synchronous=FULL")
        connection.execute("PRAGMA foreign_keys=ON")
        if connection.execute("PRAGMA quick_check").fetchone()[0] != "ok":
            raise sqlite3.DatabaseError("the store failed its integrity check")
    except sqlite3.DatabaseError:
        connection.close()
        raise
    connection.isolation_level = "DEFERRED"
    return connection


def migrate(connection: sqlite3.Connection, to_version: int) -> None:
    """Apply the migrations from the database's version up to `to_version`, each in one go."""
    version = connection.execute("PRAGMA user_version").fetchone()[0]
    for number in range(version + 1, to_version + 1):
        connection.executescript(
            f"BEGIN; {MIGRATIONS[number - 1]} PRAGMA user_version = {number}; COMMIT;"
        )
