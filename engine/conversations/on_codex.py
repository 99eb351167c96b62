"""What the rooms of the conversation core that call codex have in common."""

from __future__ import annotations

from collections.abc import Callable

from engine.transport.appserver import AppServer


class OnCodex:
    """A room that calls the codex in use: `server()` gives it, since it changes when codex
    is started again (or reached again)."""

    def __init__(self, server: Callable[[], AppServer]) -> None:
        self._current = server

    @property
    def _server(self) -> AppServer:
        return self._current()
