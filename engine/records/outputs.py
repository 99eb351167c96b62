"""Every command's whole output, written to a file of its own as it streams.

The screen keeps only the latest part of a long output; the file keeps all of it (up to a
limit), so it can be opened in a pager. The files live in a private directory (0700, files
0600) that is removed when the engine closes.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import IO

import msgspec

from engine.events import EngineEvent, ItemCompleted, ItemDelta
from engine.protocol import CommandExecutionItem

Key = tuple[str, str]
"""A command's conversation id and item id."""
CUT_NOTE = "\n[codex-deck: the output was cut here, at {limit:,} bytes]\n"


class KeptOutput(msgspec.Struct, frozen=True):
    """Where a command's whole output is (None when it was not kept), its size in bytes, and
    why it was not kept, when it was not."""

    path: Path | None
    size: int = 0
    problem: str | None = None


class CommandOutputs:
    """The spooled output of each command, by conversation and item id."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._directory: Path | None = None
        self._open: dict[Key, IO[bytes]] = {}
        self._sizes: dict[Key, int] = {}
        self._paths: dict[Key, Path] = {}
        self._failed: dict[Key, str] = {}
        self._filled_in: set[Key] = set()
        """Commands whose file holds their completed item's output (`_fill_in`)."""

    def event(self, event: EngineEvent, turn_id: str | None = None) -> None:
        """Take a command's output delta, or close its file once the command completed."""
        conversation = event.conversation_id or ""
        if isinstance(event, ItemDelta) and event.kind == "command_output":
            self.add((conversation, event.item_id), event.text)
        elif isinstance(event, ItemCompleted) and isinstance(event.item, CommandExecutionItem):
            key = (conversation, event.item.id)
            self._finish(key)
            self._fill_in(key, event.item.aggregated_output or "")

    def add(self, key: Key, text: str) -> None:
        """Add output to the command's file. Codex may send some after the command's item
        completed: it goes to the end of the same file."""
        if key in self._failed or key in self._filled_in:
            return
        size = self._sizes.setdefault(key, 0)
        if size >= self._limit:
            return
        data = text.encode("utf-8", "replace")
        try:
            file = self._open.get(key) or self._reopen(key) or self._create(key)
            if size + len(data) >= self._limit:
                data = data[: self._limit - size] + CUT_NOTE.format(limit=self._limit).encode()
            file.write(data)
        except OSError as error:
            self._failed[key] = error.strerror or str(error)
            self._finish(key)
            return
        self._sizes[key] = size + len(data)

    def _fill_in(self, key: Key, output: str) -> None:
        """Keep the output the command's completed item carries instead of what its deltas
        brought, when that is more. Codex drops output deltas when a command prints faster
        than they are sent (of 10 MB printed at once, none to 2.9 MB of them came, in runs
        here), and its completed item carries the first MiB of the output."""
        if key in self._failed or len(output.encode("utf-8", "replace")) <= self._sizes.get(key, 0):
            return
        path = self._paths.get(key)
        try:
            if path is not None:
                self._open[key] = path.open("wb")  # what the deltas brought is dropped
        except OSError as error:
            self._failed[key] = error.strerror or str(error)
            return
        self._sizes[key] = 0
        self.add(key, output)
        self._finish(key)
        self._filled_in.add(key)  # output deltas that come later would not follow on

    def kept(self, conversation_id: str, item_id: str | None = None) -> KeptOutput:
        """The file holding a command's output so far (flushed), if it was kept; without an
        item, the conversation's latest command's."""
        if item_id is None:
            ran = [key for key in self._sizes if key[0] == conversation_id]
            if not ran:
                return KeptOutput(None, problem="no command has printed anything here yet")
            key = ran[-1]
        else:
            key = (conversation_id, item_id)
        problem = self._failed.get(key)
        file = self._open.get(key)
        if file is not None:
            try:
                file.flush()
            except OSError as error:
                problem = error.strerror or str(error)
        path = self._paths.get(key)
        if problem is not None or path is None:
            return KeptOutput(None, problem=problem or "the command printed nothing")
        return KeptOutput(path, self._sizes.get(key, 0))

    def close(self) -> None:
        for key in list(self._open):
            self._finish(key)
        if self._directory is not None:
            shutil.rmtree(self._directory, ignore_errors=True)
            self._directory = None
        self._paths.clear()

    def _reopen(self, key: Key) -> IO[bytes] | None:
        path = self._paths.get(key)
        if path is None:
            return None
        file = self._open[key] = path.open("ab")
        return file

    def _create(self, key: Key) -> IO[bytes]:
        if self._directory is None:
            self._directory = Path(tempfile.mkdtemp(prefix="codex-deck-output-"))
        path = self._directory / f"{len(self._paths):05d}.log"
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        file = self._open[key] = os.fdopen(descriptor, "wb")
        self._paths[key] = path
        return file

    def _finish(self, key: Key) -> None:
        file = self._open.pop(key, None)
        if file is not None:
            try:
                file.close()
            except OSError as error:
                self._failed[key] = error.strerror or str(error)
