"""Rewind: go back to an earlier message of a conversation to send it again, edited. The
thread is forked before that message's turn into a new conversation, which is where the user
goes on; the conversation it came from keeps its whole path, reachable in the list (the Codex
TUI's rewind loses it)."""

from __future__ import annotations

import uuid
from pathlib import Path

from engine import protocol as wire
from engine.conversations.conversation import Conversation
from engine.conversations.core import Core
from engine.conversations.restore import Restorer
from engine.errors import ConnectionClosed, RpcError
from engine.events import BUSY_STATES
from engine.results import CommandResult
from engine.transport.launch import thread_defaults

TITLE_CHARS = 60


class Rewinds:
    def __init__(self, core: Core, restorer: Restorer) -> None:
        self._core = core
        self._restorer = restorer

    async def rewind(self, conversation_id: str, before_turn_id: str) -> CommandResult:
        """A new conversation with the history before `before_turn_id` (the turn of the
        message to edit); its id is the result's `conversation_id`."""
        source = self._core.conversations.get(conversation_id)
        notices = self._core.notices
        if source.state in BUSY_STATES:
            return notices.failed(source.id, "A turn is running: stop it before going back.")
        if source.thread_id is None:
            return notices.failed(source.id, "This conversation has no thread to go back in.")
        await self._restorer.restored()
        defaults = thread_defaults(self._core.settings, Path(source.cwd))
        params = wire.ThreadForkParams(
            **defaults.as_dict(),
            thread_id=source.thread_id,
            ephemeral=False,
            before_turn_id=before_turn_id,
        )
        try:
            opened = await self._core.server.thread_fork(params)
        except (RpcError, ConnectionClosed) as error:
            return notices.failed(source.id, f"codex could not go back: {error}")
        rewound = Conversation(
            id=uuid.uuid4().hex[:12],
            title=f"{source.title} · rewound"[:TITLE_CHARS],
            cwd=source.cwd,
        )
        rewound.thread = opened
        self._core.conversations.add(rewound)
        self._core.conversations.bind(rewound, opened.thread.id)
        self._core.router.updated(rewound)
        notices.say(
            rewound,
            "info",
            f"Gone back to before a message of {source.title!r}; that conversation keeps "
            "everything that came after, in the list.",
        )
        return CommandResult(True, f"Gone back; {source.title!r} is kept as it was.", rewound.id)
