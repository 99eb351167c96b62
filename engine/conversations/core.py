"""The parts of the conversation core that its rooms (turns, choices, threads, side questions)
all work with, made once by the Engine."""

from __future__ import annotations

import msgspec
from anyio.abc import TaskGroup

from engine.conversations.conversation import Conversations
from engine.conversations.emitter import Emitter
from engine.conversations.interactions import Interactions
from engine.conversations.journal import Journal
from engine.conversations.link import Link
from engine.conversations.notices import Notices
from engine.conversations.router import Router
from engine.settings import Settings
from engine.transport.appserver import AppServer


class Core(msgspec.Struct, frozen=True):
    settings: Settings
    conversations: Conversations
    router: Router
    emitter: Emitter
    journal: Journal
    notices: Notices
    interactions: Interactions
    """What codex asked that waits for the user."""
    tasks: TaskGroup
    """Where what outlives a call runs (the Engine's task group)."""
    link: Link
    """The codex in use, and how it is."""

    @property
    def server(self) -> AppServer:
        """The codex in use: it changes when codex is started (or reached) again."""
        return self.link.server
