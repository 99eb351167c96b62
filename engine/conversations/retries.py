"""A turn's errors as codex tells them. One codex will retry is said once a turn: codex repeats
"Reconnecting... waiting for network" every few seconds, without end when the model provider
refuses connections (whatever its retry settings say). A connection that could not be made at
all has the provider's address checked (`ProviderProbe`), so that a port that refuses is named
instead of the network being blamed."""

from __future__ import annotations

from collections.abc import Callable

from engine import protocol as wire
from engine.conversations.conversation import Conversation
from engine.events import NoticeLevel

Say = Callable[[Conversation, NoticeLevel, str], None]
SAID_TURNS = 64
"""Turns whose retries are remembered (the oldest are let go)."""


def connection_failed(error: wire.TurnError) -> bool:
    """Whether codex could not reach the model provider at all (no HTTP answer came)."""
    info = error.codex_error_info
    if isinstance(info, dict):
        disconnected = info.get("responseStreamDisconnected")
        if isinstance(disconnected, dict) and disconnected.get("httpStatusCode") is None:
            return True
    return (error.additional_details or "").startswith("Connection failed")


class Retries:
    """Says a turn's errors: one codex retries, once a turn; one that ends the turn, always.
    `unreachable(conversation)` is told when the provider could not be reached at all."""

    def __init__(self, say: Say, unreachable: Callable[[Conversation], None]) -> None:
        self._say = say
        self._unreachable = unreachable
        self._said: dict[str, set[str]] = {}
        """The retry messages said in each turn, by turn id."""

    def error(self, conversation: Conversation, notification: wire.TurnErrorNotice) -> None:
        error = notification.error
        if not notification.will_retry:
            self._say(conversation, "error", error.message)
            return
        said = self._said.setdefault(notification.turn_id, set())
        if error.message in said:
            return
        if len(self._said) > SAID_TURNS:
            del self._said[next(iter(self._said))]
        said.add(error.message)
        details = f" ({error.additional_details})" if error.additional_details else ""
        self._say(conversation, "warning", f"{error.message}{details} (codex retries; esc stops)")
        if connection_failed(error):
            self._unreachable(conversation)
