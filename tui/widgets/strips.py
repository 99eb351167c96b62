"""The lines above the message box: what is queued, what waits for an answer, the images
going with the next message, and the composer's note (why something was not sent)."""

from __future__ import annotations

from collections.abc import Sequence

from textual.widgets import Static

from engine.events import ConversationInfo, EngineEvent, SubmissionAccepted, TurnStarted
from tui.entries import ApprovalEntry
from tui.widgets.card import TITLES

QUEUED_SHOWN_CHARS = 70


class Strip(Static):
    """A line above the message box, hidden while it has nothing to say."""

    def __init__(self, *, id: str) -> None:
        super().__init__(id=id, markup=False)
        self._said: str | None = None

    def say(self, text: str) -> None:
        if text == self._said:
            return  # every batch of events comes here; an update re-lays out the screen
        self._said = text
        self.display = bool(text)
        self.update(text)


class QueueStrip(Strip):
    """The messages queued in the conversation shown, first to run first."""

    def __init__(self) -> None:
        super().__init__(id="queue")
        self._queued: dict[str, list[tuple[str, str]]] = {}
        """Each conversation's queued messages: submission id, text."""

    def take(self, event: EngineEvent) -> None:
        """Follow a message queued, or started from the queue."""
        if isinstance(event, SubmissionAccepted) and event.how == "queued":
            queue = self._queued.setdefault(event.conversation_id or "", [])
            queue.append((event.submission_id, event.text))
        elif isinstance(event, TurnStarted):
            queue = self._queued.get(event.conversation_id or "", [])
            queue[:] = [q for q in queue if q[0] != event.submission_id]

    def emptied(self, conversation_id: str) -> None:
        """Nothing waits in the conversation's queue any more (dropped, or reset)."""
        self._queued.pop(conversation_id, None)

    def show(self, conversation_id: str | None) -> None:
        queued = self._queued.get(conversation_id or "", [])
        self.say(
            "\n".join(
                f"queued {n}: {text.splitlines()[0][:QUEUED_SHOWN_CHARS]}"
                for n, (_, text) in enumerate(queued, 1)
            )
        )


class WaitingStrip(Strip):
    """What waits for an answer in the conversation shown, and how to reach it."""

    def __init__(self) -> None:
        super().__init__(id="waiting")

    def show(self, waiting: Sequence[ApprovalEntry]) -> None:
        if not waiting:
            self.say("")
        elif len(waiting) == 1:
            info = waiting[0].info
            if info.kind in ("question", "elicitation"):
                asks = "codex has a question" if info.kind == "question" else "a tool asks"
                typed = f"/respond {info.id} …"
            else:
                asks, typed = TITLES[info.kind], f"/approve {info.id}"
            self.say(f"⚠ {asks} [{info.id}] · ctrl+g goes to it · or {typed}")
        else:
            self.say(f"⚠ {len(waiting)} requests wait for an answer — ctrl+g goes to the first")


class AttachmentsStrip(Strip):
    """The images, side answers and hunks taken back that go with the next message."""

    def __init__(self) -> None:
        super().__init__(id="attachments")

    def show(self, info: ConversationInfo | None) -> None:
        images = info.images if info is not None else ()
        brought = info.context if info is not None else ()
        said = []
        if images:
            chips = "  ".join(f"[{image.label}]" for image in images)
            said.append(f"📎 {chips}  — sent with your next message · /image clear drops them")
        if brought:
            chips = "  ".join(f"[{label}]" for label in brought)
            said.append(f"↳ {chips}  — goes with your next message · /bringside drop takes it out")
        self.say("\n".join(said))


class ComposerNote(Static):
    """Why what was typed was not sent (or, not as an error, what happens to it)."""

    def __init__(self) -> None:
        super().__init__(id="composer-note", markup=False)

    def say(self, text: str, error: bool = True) -> None:
        self.update(text)
        self.set_class(not error, "-info")
        self.display = bool(text)
