"""One conversation: our stable id, its current Codex thread, its state, queue and turn."""

from __future__ import annotations

import time
import uuid
from collections import deque
from typing import Literal

import anyio
import msgspec

from engine.conversations.item_keys import ItemKeys
from engine.events import BUSY_STATES, ConversationInfo, ConversationState
from engine.images import AttachedImage
from engine.protocol import (
    ApprovalPolicy,
    KnownItem,
    ReasoningEffort,
    SandboxMode,
    ThreadGoal,
    ThreadOpened,
    TokenUsage,
    UnknownItem,
)

SubmissionState = Literal["queued", "sent", "completed", "failed", "interrupted", "unknown"]
SubmissionMode = Literal["start", "steer", "queue"]


class Submission(msgspec.Struct, eq=False):
    """A message from the user and what became of it.

    Its id is the `clientUserMessageId` codex records with the message, made before anything
    is sent; a submission is sent at most once.
    """

    conversation_id: str
    generation: int
    text: str
    mode: SubmissionMode
    id: str = msgspec.field(default_factory=lambda: uuid.uuid4().hex)
    state: SubmissionState = "queued"
    turn_id: str | None = None
    created_at: float = msgspec.field(default_factory=time.time)
    images: tuple[str, ...] = ()
    """Paths of the images sent with the text (as `localImage` input)."""
    context: int = 0
    """How many of the side answers brought in go with it (ahead of what the user wrote)."""
    typed: str | None = None
    """What the user wrote, when something goes ahead of it in `text` (None: all of it)."""
    secret_lost: bool = False
    """Read back from the store, where a secret in its text was kept as [redacted]: it
    cannot be sent again as the user wrote it."""
    settled: bool = False
    """Its outcome after codex went away has been looked up (and said) in this run."""


class SideContext(msgspec.Struct, frozen=True):
    """A side chat's answer (or the part of it the user chose), brought into its conversation
    to go with the next message."""

    side_chat_id: str
    question: str
    text: str

    @property
    def label(self) -> str:
        return f"side answer {self.side_chat_id}: {self.question[:40]}"

    def block(self) -> str:
        """How the model is given it, ahead of the message (the answer only: what was asked
        aside stays there)."""
        return (
            "[The user brings in this answer from a side chat (a throwaway copy of this "
            f"conversation, asked aside):]\n{self.text.strip()}\n[End of the side chat's answer]"
        )


class RevertNote(msgspec.Struct, frozen=True):
    """What the user took back of a change codex made, and why, to go with the next
    message (when no turn runs to be told at once)."""

    text: str
    label: str

    def block(self) -> str:
        return self.text


Brought = SideContext | RevertNote
"""What goes with the next message, ahead of what the user writes."""


def with_context(text: str, context: list[Brought]) -> str:
    """The message as sent: the side answers brought in, then what the user wrote."""
    return "\n\n".join([*(part.block() for part in context), text])


class Conversation(msgspec.Struct, eq=False):
    """The engine's record of a conversation; only the engine changes it."""

    id: str
    title: str
    cwd: str
    state: ConversationState = "idle"
    thread_id: str | None = None
    generation: int = 0
    thread: ThreadOpened | None = None
    archived: bool = False
    images: list[AttachedImage] = msgspec.field(default_factory=list)
    """Images staged for the next message."""
    context: list[Brought] = msgspec.field(default_factory=list)
    """Side answers the user brought in, and what the user took back of a change, to go
    with the next message (then let go)."""
    queue: deque[Submission] = msgspec.field(default_factory=deque)
    queue_held: bool = False
    """After a stop, queued messages wait for the next message instead of starting."""
    submission: Submission | None = None
    unsettled: list[Submission] = msgspec.field(default_factory=list)
    """Messages whose outcome is unknown (codex went away while they were in flight)."""
    steered: list[Submission] = msgspec.field(default_factory=list)
    """Messages sent into the running turn; they end with it."""
    turn_id: str | None = None
    turn_started_at: float | None = None
    stop_requested: bool = False
    token_usage: TokenUsage | None = None
    open_items: dict[str, KnownItem | UnknownItem] = msgspec.field(default_factory=dict)
    """The running turn's items that have not completed, by codex's id (each under its key)."""
    item_keys: ItemKeys = msgspec.field(default_factory=ItemKeys)
    finished_turns: set[str] = msgspec.field(default_factory=set)
    last_diff: str | None = None
    latest_turn_diff: str | None = None
    review_said: str | None = None
    """The text of the review the running turn ended (codex repeats it as an answer)."""
    """The diff of the latest turn that changed files (kept once the turn has ended)."""
    warned: set[str] = msgspec.field(default_factory=set)
    grants: list[str] = msgspec.field(default_factory=list)
    """Approvals given for the whole session (or saved as rules), in words."""
    plan_mode: bool = False
    """Turns run in codex's plan collaboration mode (it may ask questions)."""
    goal: ThreadGoal | None = None
    """What codex works toward in this thread (/goal), as codex last said."""
    approval_policy: ApprovalPolicy | None = None
    """Set with /approvals; applies from the next turn."""
    sandbox: SandboxMode | None = None
    """Set with /sandbox; applies from the next turn."""
    model: str | None = None
    """Set with /model; applies from the next turn."""
    provider: str | None = None
    """Set with /provider; its threads run on it."""
    reasoning_effort: ReasoningEffort | None = None
    """Set with /model; applies from the next turn."""
    turn_ended: anyio.Event = msgspec.field(default_factory=anyio.Event)
    host: str | None = None
    """The machine whose codex holds it (None: the only codex there is)."""

    def info(self, pending_interactions: int) -> ConversationInfo:
        return ConversationInfo(
            id=self.id,
            title=self.title,
            cwd=self.cwd,
            state=self.state,
            thread_id=self.thread_id,
            generation=self.generation,
            queued=len(self.queue),
            pending_interactions=pending_interactions,
            archived=self.archived,
            turn_id=self.turn_id,
            turn_started_at=self.turn_started_at,
            grants=tuple(self.grants),
            plan_mode=self.plan_mode,
            images=tuple(self.images),
            context=tuple(part.label for part in self.context),
            host=self.host,
        )

    def begin_turn(self, turn_id: str) -> bool:
        """Take `turn_id` as the running turn; False if it is already known or finished."""
        if turn_id == self.turn_id or turn_id in self.finished_turns:
            return False
        self.turn_id = turn_id
        self.turn_started_at = time.time()
        self.turn_ended = anyio.Event()
        if self.state not in ("waiting", "stopping"):
            self.state = "running"
        if self.submission is not None and self.submission.turn_id is None:
            self.submission.turn_id = turn_id
        return True

    def end_turn(self, turn_id: str) -> None:
        self.finished_turns.add(turn_id)
        self.review_said = None
        self.turn_id = None
        self.turn_started_at = None
        self.submission = None
        self.steered.clear()
        self.stop_requested = False
        self.open_items.clear()
        self.last_diff = None
        self.state = "idle"
        self.turn_ended.set()

    # Its state moves only here (each move named for what happened), so that what a state
    # means is decided in one place: see ConversationState.

    def prepare(self, submission: Submission) -> None:
        """A message is on its way to become a turn (its thread may be started first)."""
        self.state = "preparing"
        self.submission = submission

    def wait_for_user(self) -> None:
        """A request of codex waits for the user's answer while the turn runs."""
        if self.state == "running":
            self.state = "waiting"

    def answered(self) -> None:
        """No request waits any more: the turn runs on."""
        if self.state == "waiting":
            self.state = "running"

    def stopping(self) -> None:
        """codex was asked to stop the running turn."""
        self.state = "stopping"

    def idle(self) -> None:
        """No turn runs and none is on its way (a message abandoned, the conversation reset)."""
        self.submission = None
        self.stop_requested = False
        self.state = "idle"

    def thread_failed(self) -> None:
        """codex refused to start the conversation's thread; the next message tries again."""
        self.state = "failed"

    def thread_started(self) -> None:
        """The conversation has a thread again, after one failed to start."""
        if self.state == "failed":
            self.state = "idle"

    def lost(self) -> None:
        """codex went away during a turn: what became of it is not known."""
        self.state = "result_unknown"

    def settled(self, unknown: bool) -> None:
        """Brought back (after a restart): what was in flight is settled, or still not known."""
        if self.state not in BUSY_STATES:
            self.state = "result_unknown" if unknown else "idle"

    def unknown_dropped(self) -> None:
        """What was not known is sent again or let go: the conversation can take messages."""
        if self.state == "result_unknown":
            self.state = "idle"


class Conversations:
    """Every conversation by id, and by each Codex thread it ever had."""

    def __init__(self, host: str | None = None) -> None:
        self.host = host
        """The machine whose codex holds them (None: the only codex there is)."""
        self._by_id: dict[str, Conversation] = {}
        self._by_thread: dict[str, tuple[Conversation, int]] = {}
        self._sub_agents: dict[str, Conversation] = {}

    def add(self, conversation: Conversation) -> None:
        conversation.host = self.host
        self._by_id[conversation.id] = conversation

    def __contains__(self, conversation_id: str) -> bool:
        return conversation_id in self._by_id

    def get(self, conversation_id: str) -> Conversation:
        """Raises KeyError with a message naming the id."""
        try:
            return self._by_id[conversation_id]
        except KeyError:
            raise KeyError(f"there is no conversation {conversation_id!r}") from None

    def all(self) -> list[Conversation]:
        return list(self._by_id.values())

    def bind(self, conversation: Conversation, thread_id: str) -> None:
        """Make `thread_id` the conversation's current thread (a new generation)."""
        conversation.thread_id = thread_id
        self._by_thread[thread_id] = (conversation, conversation.generation)

    def add_sub_agent(self, parent: Conversation, thread_id: str) -> bool:
        """A sub-agent's thread, spawned by `parent`'s turn: what it asks goes to `parent`.
        False if it was known already."""
        if thread_id in self._sub_agents:
            return False
        self._sub_agents[thread_id] = parent
        return True

    def sub_agents(self) -> list[tuple[str, Conversation]]:
        """Every sub-agent's thread known, with the conversation that spawned it."""
        return list(self._sub_agents.items())

    def sub_agent_parent(self, thread_id: str | None) -> Conversation | None:
        """The conversation whose sub-agent runs in this thread, if one does."""
        return self._sub_agents.get(thread_id) if thread_id is not None else None

    def current(self, thread_id: str | None) -> Conversation | None:
        """The conversation whose current thread this is (None for an old or foreign one)."""
        if thread_id is None:
            return None
        owner = self._by_thread.get(thread_id)
        if owner is None or owner[0].generation != owner[1]:
            return None
        return owner[0]

    def owner(self, thread_id: str | None) -> Conversation | None:
        """The conversation this thread belongs or belonged to."""
        owner = self._by_thread.get(thread_id) if thread_id is not None else None
        return owner[0] if owner is not None else None

    def busy(self) -> int:
        return sum(1 for c in self._by_id.values() if c.state in BUSY_STATES)
