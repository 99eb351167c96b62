"""What an engine call gives back: the result of a line of input, or of a message sent."""

from __future__ import annotations

from typing import Literal

import msgspec


class SubmitOutcome(msgspec.Struct, frozen=True):
    """What became of a submission. When not accepted, nothing was sent."""

    accepted: bool
    how: Literal["started", "steered", "queued"] | None
    message: str
    submission_id: str | None = None


class CommandResult(msgspec.Struct, frozen=True):
    """The result of a line of input; `conversation_id` names a conversation /new made."""

    ok: bool
    message: str
    conversation_id: str | None = None
