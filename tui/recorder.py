"""`codex-deck --record`: the session's events written to a file, to be replayed."""

from __future__ import annotations

import time
from pathlib import Path

from engine import Subscription, write_recording
from engine.events import ConversationUpdated, EngineEvent, InteractionRequested, Stamp
from engine.frontend import Backend


async def record(backend: Backend, stream: Subscription[EngineEvent], path: Path) -> None:
    """Write the backend's events to `path` until it closes, starting with what it already
    shows (its conversations, their history and pending requests).

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
        await write_recording(path, prelude, stream, backend.redact)
