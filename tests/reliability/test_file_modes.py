"""What codex-deck writes of a conversation is private to the user: the store (and SQLite's
journal files beside it) is 0600 in a 0700 directory, and so is a recording."""

from __future__ import annotations

import stat
from pathlib import Path

import anyio

from engine.events import EngineEvent
from engine.records.recording import read_recording, write_recording
from engine.records.store import Store
from engine.transport.fanout import Fanout
from tests.reliability.report import Ledger


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_store_and_its_journal_files_are_private(tmp_path: Path, tally: Ledger) -> None:
    path = tmp_path / "data" / "codex-deck" / "codex-deck.sqlite3"
    store = Store.open(path)
    try:
        store.put(
            "INSERT INTO trace (conversation_id, turn_id, at, event) VALUES (?, ?, ?, ?)",
            ("c", None, 0.0, "{}"),
        )
        anyio.run(store.flush)
        files = sorted(path.parent.iterdir())
        tally(
            "security",
            "files 0600 in a 0700 directory: store, its journal files, a recording",
            cases=len(files) + 1,
        )
        assert [f.name for f in files] == [
            "codex-deck.sqlite3",
            "codex-deck.sqlite3-shm",
            "codex-deck.sqlite3-wal",
        ]
        assert {f.name: mode(f) for f in files} == {f.name: 0o600 for f in files}
        assert mode(path.parent) == 0o700
    finally:
        store.close()


def test_a_recording_is_private_even_over_a_file_that_was_not(
    tmp_path: Path, tally: Ledger
) -> None:
    path = tmp_path / "session.jsonl"
    path.write_text("old")
    path.chmod(0o644)
    fanout: Fanout[EngineEvent] = Fanout()
    stream = fanout.subscribe()
    fanout.close()
    written = anyio.run(write_recording, path, [], stream, str)
    tally("security", "files 0600 in a 0700 directory: store, its journal files, a recording")
    assert written == 0
    assert mode(path) == 0o600
    assert read_recording(path) == []
