"""What became of a message that was in flight when codex-deck or codex went away.

The thread is the witness: codex records each user message with the client message id it
was sent with. Found in a completed or failed turn, the message takes that outcome; found in
a turn that was cut off (codex calls a turn it never saw finish "interrupted") or that has not
finished, or not found at all, its result is unknown. Nothing is ever sent again by itself.
"""

from __future__ import annotations

from typing import cast

import msgspec

from engine.conversations.conversation import (
    Conversation,
    Submission,
    SubmissionMode,
    SubmissionState,
)
from engine.protocol import ApprovalPolicy, ReasoningEffort, SandboxMode, Thread, UserMessageItem
from engine.records.store import StoredConversation, StoredSubmission

QUOTE_CHARS = 60


class Settled(msgspec.Struct, frozen=True):
    state: SubmissionState
    turn_id: str | None
    explanation: str


def quoted(text: str) -> str:
    line = " ".join(text.split())
    return repr(line if len(line) <= QUOTE_CHARS else line[: QUOTE_CHARS - 1] + "…")


def settle(submission_id: str, text: str, thread: Thread | None, shared: bool = False) -> Settled:
    """The outcome of the submission `submission_id` as `thread` shows it (of a `shared`
    codex, one that ran on without codex-deck: a turn still running there is followed)."""
    message = quoted(text)
    for turn in thread.turns if thread is not None else []:
        sent = any(
            isinstance(item, UserMessageItem) and item.client_id == submission_id
            for item in turn.items
        )
        if not sent:
            continue
        if turn.status == "completed":
            return Settled("completed", turn.id, f"{message} completed; its answer is above.")
        if turn.status == "failed":
            why = f" ({turn.error.message})" if turn.error is not None else ""
            return Settled("failed", turn.id, f"{message} failed{why}.")
        if turn.status == "interrupted":
            return Settled(
                "unknown",
                turn.id,
                f"{message} was cut off when codex went away (codex recorded its turn as "
                "interrupted): what it did up to then is in its history, the rest is unknown. "
                "It was not run again: /resend sends it once more.",
            )
        if not shared:
            return Settled(
                "unknown",
                turn.id,
                f"{message} reached codex, but its turn has not finished and codex-deck cannot "
                "follow it any more; what it did is unknown. It was not run again: /resend "
                "sends it once more.",
            )
        return Settled(
            "sent",
            turn.id,
            f"{message} runs on in codex (a shared codex kept it while codex-deck was away); "
            "it is followed from here, and esc stops it.",
        )
    return Settled(
        "unknown",
        None,
        f"{message} may or may not have reached codex: its thread has no record of it. It was "
        "not sent again: /resend sends it.",
    )


def restored_conversation(stored: StoredConversation) -> Conversation:
    """A conversation as the store kept it (its thread is bound and resumed by the engine)."""
    return Conversation(
        id=stored.id,
        title=stored.title,
        cwd=stored.cwd,
        generation=stored.generation,
        plan_mode=stored.plan_mode,
        approval_policy=cast(ApprovalPolicy | None, stored.approval_policy),
        sandbox=cast(SandboxMode | None, stored.sandbox),
        model=stored.model,
        reasoning_effort=cast(ReasoningEffort | None, stored.reasoning_effort),
    )


def secret_not_kept(text: str, what: str) -> str:
    """Why a message read back from the store cannot be `what` (sent again, say)."""
    return (
        f"{quoted(text)} held a secret, which codex-deck does not keep, so it cannot be {what} "
        "as you wrote it: type it again."
    )


def restored_submission(stored: StoredSubmission) -> Submission:
    return Submission(
        stored.conversation_id,
        stored.generation,
        stored.text,
        cast(SubmissionMode, stored.mode),
        id=stored.id,
        state=cast(SubmissionState, stored.state),
        turn_id=stored.turn_id,
        created_at=stored.created_at,
        images=stored.images,
        secret_lost=stored.secret,
    )
