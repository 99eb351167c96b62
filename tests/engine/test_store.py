"""The store on disk: where and how it is created, schema upgrades from the first version, a
newer store refused, an unreadable one moved aside, and writes the disk refuses kept."""

from __future__ import annotations

import sqlite3
import stat
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from engine.conversations.conversation import Submission
from engine.conversations.journal import Journal
from engine.conversations.recovery import restored_submission
from engine.errors import StoreError
from engine.records.store import SCHEMA_VERSION, Store, migrate
from engine.records.trace import Redactor

pytestmark = pytest.mark.anyio

CONVERSATION = (
    "INSERT INTO conversations (id, title, cwd, generation, created_at, updated_at) "
    "VALUES (?, 'Kept', '/w', 0, 1, 1)"
)


@contextmanager
def refused_writes(path: Path) -> Iterator[None]:
    """Make the database and its write-ahead log unwritable, even for root."""
    files = [str(path), str(path) + "-wal"]
    subprocess.run(["chattr", "+i", *files], check=True)
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", *files], check=True)


def test_a_new_store_is_private(tmp_path: Path) -> None:
    path = tmp_path / "data" / "codex-deck" / "store.sqlite3"
    store = Store.open(path)
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert store.moved_aside is None
    version = sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0]
    assert version == SCHEMA_VERSION
    store.close()


def test_a_store_of_the_first_schema_is_upgraded_and_keeps_its_rows(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    first = sqlite3.connect(path, isolation_level=None)
    migrate(first, 1)
    first.execute(CONVERSATION, ("c1",))
    first.execute(
        "INSERT INTO submissions (id, conversation_id, generation, text, mode, state, "
        "created_at, updated_at) VALUES ('s1', 'c1', 0, 'hello', 'start', 'sent', 1, 1)"
    )
    first.close()

    store = Store.open(path)
    loaded = store.load()
    [conversation] = loaded.conversations
    assert (conversation.id, conversation.title, conversation.plan_mode) == ("c1", "Kept", False)
    assert [(s.id, s.text, s.state, s.images) for s in loaded.submissions] == [
        ("s1", "hello", "sent", ())
    ]
    assert store.trace_rows("c1") == []
    store.close()


async def test_the_images_of_a_message_are_kept_with_it(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "store.sqlite3")
    journal = Journal(store, trace_limit=100, redact=Redactor(()))
    store.put(CONVERSATION, ("c1",))
    submission = Submission("c1", 0, "look", "start", images=("/w/a.png", "/w/b.jpg"))
    submission.state = "sent"
    journal.submission(submission)
    assert await store.flush()
    [loaded] = store.load().submissions
    assert (loaded.id, loaded.images) == (submission.id, ("/w/a.png", "/w/b.jpg"))
    assert restored_submission(loaded).images == ("/w/a.png", "/w/b.jpg")
    store.close()


def test_a_store_from_a_newer_codex_deck_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    newer = sqlite3.connect(path)
    newer.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    newer.close()
    newer_than = rf"\(schema {SCHEMA_VERSION + 1}; this one knows up to {SCHEMA_VERSION}\)"
    with pytest.raises(StoreError, match=rf"newer codex-deck {newer_than}"):
        Store.open(path)


def test_an_unreadable_store_is_moved_aside_and_kept(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    garbage = b"this is not a database " * 200
    path.write_bytes(garbage)
    store = Store.open(path)
    assert store.moved_aside is not None
    assert store.moved_aside.read_bytes() == garbage
    assert store.load().conversations == []
    store.close()


async def test_writes_the_disk_refuses_are_kept_and_written_later(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    store = Store.open(path)
    problems: list[str | None] = []
    store.on_problem = problems.append
    store.put(CONVERSATION, ("before",))
    assert await store.flush()
    with refused_writes(path):
        store.put(CONVERSATION, ("during",))
        assert not await store.flush()
        assert store.problem is not None
    store.put(CONVERSATION, ("after",))
    assert await store.flush()
    assert problems == ["disk I/O error", None]
    assert [c.id for c in store.load().conversations] == ["before", "during", "after"]
    store.close()
