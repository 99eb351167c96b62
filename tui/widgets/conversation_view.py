"""The conversation in view, in the middle of the main screen: its transcript (each
conversation keeps one; they are switched, not rebuilt), the lines above the message box, the
find bar and the message box."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.css.query import NoMatches
from textual.widgets import ContentSwitcher, Static

from engine.events import ConversationInfo
from tui.widgets.composer import CommandCompletion, Composer
from tui.widgets.find_bar import Closed as FindClosed
from tui.widgets.find_bar import FindBar
from tui.widgets.strips import AttachmentsStrip, ComposerNote, QueueStrip, WaitingStrip
from tui.widgets.transcript import Transcript

BELOW = "▼ new output below · ctrl+end goes to it and follows"


class ConversationView(Vertical):
    def __init__(self, welcome: str) -> None:
        super().__init__(id="center")
        self.welcome = welcome
        """What a new conversation's transcript says before anything happens in it."""
        self.current: str | None = None
        """The conversation shown."""

    def compose(self) -> ComposeResult:
        yield ContentSwitcher(id="transcripts")
        yield Static(BELOW, id="below", markup=False)
        yield QueueStrip()
        yield WaitingStrip()
        yield AttachmentsStrip()
        yield CommandCompletion()
        yield ComposerNote()
        yield FindBar(self.current_transcript)
        yield Composer()

    @property
    def composer(self) -> Composer:
        return self.get_child_by_type(Composer)

    @property
    def queue(self) -> QueueStrip:
        return self.get_child_by_type(QueueStrip)

    @property
    def find_bar(self) -> FindBar:
        return self.get_child_by_type(FindBar)

    def transcript(self, conversation_id: str | None) -> Transcript | None:
        # Looked up among the switcher's children by id: a query would walk every widget of
        # every transcript, on each batch of events (a quarter of the time with 8 streams).
        switcher = self.get_child_by_type(ContentSwitcher)
        try:
            return switcher.get_child_by_id(f"transcript-{conversation_id}", Transcript)
        except NoMatches:
            return None

    def current_transcript(self) -> Transcript | None:
        return self.transcript(self.current) if self.current is not None else None

    async def add(self, info: ConversationInfo) -> None:
        """Make the conversation's transcript, if it has none yet."""
        if self.transcript(info.id) is None:
            switcher = self.get_child_by_type(ContentSwitcher)
            await switcher.add_content(Transcript(info.id, self.welcome, info.cwd))

    async def show(self, conversation_id: str) -> None:
        """Bring the conversation's transcript into view, at its latest."""
        find = self.find_bar
        if find.is_open and conversation_id != self.current:
            find.action_close()
        self.current = conversation_id
        self.get_child_by_type(ContentSwitcher).current = f"transcript-{conversation_id}"
        transcript = self.transcript(conversation_id)
        if transcript is not None:
            await transcript.catch_up()
            transcript.follow()
        self.query_one("#below", Static).display = False

    def focus_in_transcripts(self) -> bool:
        focused = self.screen.focused
        switcher = self.get_child_by_type(ContentSwitcher)
        return focused is not None and switcher in focused.ancestors

    def follow(self) -> None:
        """Back to the end of the conversation, following what comes."""
        transcript = self.current_transcript()
        if transcript is not None:
            transcript.follow()

    def refresh_lines(self, info: ConversationInfo | None) -> None:
        """The lines above the message box, for the conversation shown (`info`)."""
        self.queue.show(self.current)
        transcript = self.current_transcript()
        self.get_child_by_type(WaitingStrip).show(transcript.waiting if transcript else [])
        self.get_child_by_type(AttachmentsStrip).show(info)

    def note(self, text: str, error: bool = True) -> None:
        """Say under the message box why what was typed was not sent (or what happens to
        it, not as an error); empty: say nothing."""
        self.get_child_by_type(ComposerNote).say(text, error)

    @on(Transcript.Below)
    def _below(self, event: Transcript.Below) -> None:
        if event.transcript.conversation_id == self.current:
            self.query_one("#below", Static).display = event.unseen

    @on(FindClosed)
    def _find_closed(self) -> None:
        self.composer.focus()
        self.follow()  # done reading where find went: back to what comes

    @on(Composer.PasteRefused)
    def _paste_refused(self, event: Composer.PasteRefused) -> None:
        self.note(event.why)
