"""`codex-deck --record FILE`: the session's events written to a file, to be replayed."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from textual.notifications import SeverityLevel
from textual.worker import Worker

from engine import Subscription, write_recording
from engine.events import ConversationUpdated, EngineEvent, InteractionRequested, Stamp
from engine.frontend import Backend

RECORDING_STOPPED = (
    "The recording stops here: codex-deck moved to another codex (your own, after the "
    "sign-in), and a recording keeps one codex's session; `--record` records there."
)


class Notify(Protocol):
    def __call__(self, message: str, *, severity: SeverityLevel, timeout: float | None) -> None:
        """Tell the user (the app's notify)."""


class Recorder:
    """Records the backend the app starts on, until it closes. A recording keeps one codex's
    session: when the app moves to another (after a sign-in), it stops, saying so on screen
    and as the file's last line."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.worker: Worker[None] | None = None
        """Where it runs (set by the app as it starts it)."""
        self._stopped = ""

    def moving(self) -> None:
        """The app moves to another codex: the recording ends as the one in use closes."""
        if self.worker is not None and self.worker.is_running:
            self._stopped = RECORDING_STOPPED

    async def run(
        self, backend: Backend, stream: Subscription[EngineEvent], notify: Notify
    ) -> None:
        """Record until the backend closes; `notify` says it when the recording stops before
        the session does."""
        try:
            await record(backend, stream, self.path, lambda: self._stopped)
        except OSError as error:
            notify(f"The recording stopped: {self.path}: {error}", severity="error", timeout=30)
            return
        if self._stopped:
            notify(f"{self._stopped} ({self.path})", severity="warning", timeout=30)


async def record(
    backend: Backend,
    stream: Subscription[EngineEvent],
    path: Path,
    stopped: Callable[[], str] = lambda: "",
) -> None:
    """Write the backend's events to `path` until it closes, starting with what it already
    shows (its conversations, their history and pending requests); `stopped()` says why the
    recording stops before the session does (empty: it does not), as the file's last line.

    Raises:
        OSError: the file could not be written (the recording stops there).
    """
    prelude: list[EngineEvent] = []
    for info in backend.conversations():
        stamp = Stamp(seq=0, at=time.time(), conversation_id=info.id)
        prelude.append(ConversationUpdated(**stamp, info=info))
        prelude += await backend.history(info.id)
    for interaction in backend.pending_interactions():
        stamp = Stamp(seq=0, at=time.time(), conversation_id=interaction.conversation_id)
        prelude.append(InteractionRequested(**stamp, interaction=interaction))
    with stream:
        await write_recording(path, prelude, stream, backend.redact, stopped)
