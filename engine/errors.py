"""The errors the engine raises, each with a message meant for the user."""

from __future__ import annotations

from typing import Any


class CodexDeckError(Exception):
    """Base class: the message says what went wrong and, where it can, what to do."""


class SettingsError(CodexDeckError):
    """The settings file or environment holds a value that cannot be used."""


class CodexNotFound(CodexDeckError):
    """No codex binary could be found in any of the places looked in."""


class CodexTooOld(CodexDeckError):
    """The codex binary is older than the oldest version codex-deck works with."""


class ConnectionClosed(CodexDeckError):
    """The connection to the app-server ended; every pending request fails with this."""


class StoreError(CodexDeckError):
    """The store cannot be used; the message says why and what to do."""


class LeftUnanswered(CodexDeckError):
    """A request of the peer's deliberately left without a reply (a shared codex asks it
    again of the next client)."""


class RpcError(CodexDeckError):
    """The peer answered a request with a JSON-RPC error object."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(f"{message} (code {code})")
        self.code = code
        self.message = message
        self.data = data
