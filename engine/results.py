"""What an engine call gives back: the result of a line of input, or of a message sent."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True, slots=True)
class SubmitOutcome:
    """What became of a submission. When not accepted, nothing was sent."""

    accepted: bool
    how: Literal["started", "steered", "queued"] | None
    message: str
    submission_id: str | None = None


@dataclass(frozen=True, slots=True)
class CommandResult:
    """The result of a line of input; `conversation_id` names a conversation /new made."""

    ok: bool
    message: str
    conversation_id: str | None = None
