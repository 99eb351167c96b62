"""Where conversations' older turns are kept once their trace holds enough in memory: one file
per conversation, in a private directory (0700, files 0600) that is removed when the engine
closes. Known secrets are written as [redacted], as in the store.

A turn is written as one line of JSON (its events) and read back by where it starts; a turn
that cannot be written (the disk is full) stays in memory.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO

import msgspec

from engine.events import EngineEvent
from engine.records.recording import event_from_json, event_to_json


class Spooled(msgspec.Struct, frozen=True):
    """Where a turn's events are in its conversation's file."""

    offset: int
    length: int


class TraceSpool:
    """The files of the turns let go of from memory, by conversation."""

    def __init__(self, redact: Callable[[str], str]) -> None:
        self._redact = redact
        self._directory: Path | None = None
        self._files: dict[str, IO[bytes]] = {}

    def write(self, conversation_id: str, events: list[EngineEvent]) -> Spooled | None:
        """Write a turn's events; where they are, or None when they could not be written."""
        line = self._redact(json.dumps([event_to_json(e) for e in events], ensure_ascii=False))
        data = line.encode() + b"\n"
        try:
            file = self._file(conversation_id)
            offset = file.seek(0, os.SEEK_END)
            file.write(data)
            file.flush()
        except OSError:
            return None
        return Spooled(offset, len(data))

    def read(self, conversation_id: str, where: Spooled) -> list[EngineEvent]:
        """A turn's events as written."""
        file = self._files[conversation_id]
        data = os.pread(file.fileno(), where.length, where.offset)
        return [event_from_json(event) for event in json.loads(data)]

    def _file(self, conversation_id: str) -> IO[bytes]:
        file = self._files.get(conversation_id)
        if file is None:
            if self._directory is None:
                self._directory = Path(tempfile.mkdtemp(prefix="codex-deck-trace-"))
            path = self._directory / f"{len(self._files)}.jsonl"
            descriptor = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
            file = self._files[conversation_id] = os.fdopen(descriptor, "w+b")
        return file

    def close(self) -> None:
        """Remove the files (what they held is gone with the engine)."""
        for file in self._files.values():
            file.close()
        self._files.clear()
        if self._directory is not None:
            shutil.rmtree(self._directory, ignore_errors=True)
            self._directory = None
