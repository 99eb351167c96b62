"""The conversation in view, in the middle of the main screen: its transcript (each
conversation keeps one; they are switched, not rebuilt), the lines above the message box, the
find bar and the message box."""

from __future__ import annotations

import time
from dataclasses import dataclass

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.css.query import NoMatches
from textual.message import Message
from textual.widgets import ContentSwitcher, Static

from engine import Answer, DiffOf, DiffView
from engine.errors import CodexDeckError
from engine.events import BUSY_STATES, ConversationInfo, EngineEvent, FilesFound, ItemCompleted
from engine.frontend import Backend
from engine.protocol import UserMessageItem
from tui.entries import CommandEntry
from tui.pacing import after_painted
from tui.pager import page_output
from tui.reported import reported, why
from tui.text import inert
from tui.widgets.card import InteractionCard
from tui.widgets.command import CommandCell
from tui.widgets.composer import CommandCompletion, Composer
from tui.widgets.draft import HELD, Draft, away
from tui.widgets.find_bar import Closed as FindClosed
from tui.widgets.find_bar import FindBar
from tui.widgets.mentions import FileCompletion
from tui.widgets.message import AgentMessage
from tui.widgets.review import FindingLine
from tui.widgets.strips import AttachmentsStrip, ComposerNote, QueueStrip, WaitingStrip
from tui.widgets.transcript import Transcript
from tui.widgets.working import WorkingLine

BELOW = "▼ new output below · ctrl+end goes to it and follows"
REWIND_SECONDS = 0.6
"""Esc twice within this, with nothing running, goes back to an earlier message."""


class ConversationView(Vertical):
    """What is typed goes to the conversation shown (the screen says how: run, or queued);
    an answer on a card, a pasted image and Esc while a turn runs go there too."""

    @dataclass
    class Ran(Message):
        """A line was run (`ok`: accepted), perhaps making a conversation (`created`)."""

        view: ConversationView
        line: str
        ok: bool
        created: str | None

    @dataclass
    class DiffReady(Message):
        """The diff /diff asked for: for a screen of its own."""

        view: DiffView
        at: str | None = None
        """The file to show first."""

    @dataclass
    class RewindAsked(Message):
        """Esc Esc: go back to one of these earlier messages (turn, text)."""

        conversation_id: str
        messages: list[tuple[str, str]]

    def __init__(self, welcome: str) -> None:
        super().__init__(id="center")
        self.welcome = welcome
        """What a new conversation's transcript says before anything happens in it."""
        self.current: str | None = None
        """The conversation shown."""
        self.backend: Backend | None = None
        """Where what is typed goes (None until the engine is up)."""
        self._failed = ""
        """Why the engine could not start, if it could not."""
        self._away = ""
        """Why codex is away while it is being started (or reached) again."""
        self._info: ConversationInfo | None = None
        """How the conversation shown is."""
        self._idle_escape = 0.0
        """When Esc was last pressed with nothing running (a second soon after rewinds)."""

    def compose(self) -> ComposeResult:
        yield ContentSwitcher(id="transcripts")
        yield Static(BELOW, id="below", markup=False)
        yield WorkingLine()
        yield QueueStrip()
        yield WaitingStrip()
        yield AttachmentsStrip()
        yield CommandCompletion()
        yield FileCompletion()
        yield ComposerNote()
        yield FindBar(self.current_transcript)
        yield Composer()

    @property
    def composer(self) -> Composer:
        return self.get_child_by_type(Composer)

    @property
    def working(self) -> WorkingLine:
        return self.get_child_by_type(WorkingLine)

    @property
    def queue(self) -> QueueStrip:
        return self.get_child_by_type(QueueStrip)

    @property
    def find_bar(self) -> FindBar:
        return self.get_child_by_type(FindBar)

    def take_draft(self, draft: Draft) -> None:
        """Carry on with what was typed before the main screen was shown (a message sent
        then goes once the engine is up)."""
        composer = self.composer
        composer.take(draft)
        self.screen.set_focus(composer)
        if composer.held is not None:
            self.note(HELD, error=False)

    def held(self, event: Composer.Submitted) -> bool:
        """Whether a message sent stays in the box instead: held until the engine is up or
        codex is back, or kept because the engine could not start (saying so). One held as
        it was sent goes when it is let go, as a new message, even if codex came up before
        this one was read (else it would go twice)."""
        if self._failed:
            self.note(self._failed)
            return True
        if not event.held:
            if self.backend is not None:
                return False
            if self.composer.held is None:
                self.composer.hold(event.mode)
        if self.composer.held is not None:
            self.note(away(self._away) if self._away else HELD, error=False)
        return True

    def engine_up(self, backend: Backend, away: str = "") -> None:
        """The engine is up: what is typed goes to it; a message held meanwhile goes now (or
        once codex is back, when it is `away`)."""
        self.backend = backend
        self.composer.engine = "up"
        self.codex_away(away)

    def codex_away(self, why: str) -> None:
        """codex is away (`why`) and being started or reached again: a message sent waits in
        the box (saying so) until it is back (`why` empty), and goes then."""
        composer = self.composer
        self._away = why
        if why:
            composer.engine = "away"
            if composer.held is not None:
                self.note(away(why), error=False)
            return
        composer.engine = "up"
        held = composer.release()
        if held is not None:
            self.note("")
            composer.submit(held)

    def codex_lost(self, why: str) -> None:
        """codex will not be back (`why`): a message held for it stays in the box, held no
        longer."""
        self._away = ""
        composer = self.composer
        composer.engine = "up"
        if composer.release() is not None:
            self.note(f"Not sent: {why}")

    def engine_failed(self, why: str) -> None:
        """The engine could not start: say why; what is written stays, held no longer."""
        self._failed = why
        composer = self.composer
        composer.engine = "failed"
        composer.release()
        self.note(why)

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

    @on(CommandCell.OpenOutput)
    def _open_output(self, message: CommandCell.OpenOutput) -> None:
        self.page_output(message.entry)

    def page_output(self, entry: CommandEntry) -> None:
        """The command's whole output in the pager (the kept file, or the screen's copy)."""
        if self.backend is None or self.current is None:
            return
        kept = self.backend.command_output(self.current, entry.key)
        page_output(self.app, kept, entry.output)

    async def add(self, info: ConversationInfo) -> None:
        """Make the conversation's transcript, if it has none yet."""
        if self.transcript(info.id) is None:
            switcher = self.get_child_by_type(ContentSwitcher)
            await switcher.add_content(Transcript(info.id, self.welcome, info.cwd))

    async def apply(self, events: dict[str, list[EngineEvent]]) -> None:
        """Each conversation's events, into its transcript (and what its turn does now)."""
        working = self.get_child_by_type(WorkingLine)
        for conversation_id, its_events in events.items():
            working.take(conversation_id, its_events)
            transcript = self.transcript(conversation_id)
            if transcript is not None:
                await transcript.apply(its_events)

    async def show(self, conversation_id: str) -> None:
        """Bring the conversation's transcript into view, at its latest."""
        find = self.find_bar
        if find.is_open and conversation_id != self.current:
            find.action_close()
        left = self.transcript(self.current) if self.current != conversation_id else None
        self.current = conversation_id
        self.get_child_by_type(ContentSwitcher).current = f"transcript-{conversation_id}"
        transcript = self.transcript(conversation_id)
        if transcript is not None:
            await transcript.catch_up()
            transcript.follow()
        self.query_one("#below", Static).display = False
        if left is not None:  # once the one shown is painted: not in the way of its frame
            after_painted(left, left.put_away)

    def focus_in_transcripts(self) -> bool:
        focused = self.screen.focused
        switcher = self.get_child_by_type(ContentSwitcher)
        return focused is not None and switcher in focused.ancestors

    def follow(self) -> None:
        """Back to the end of the conversation, following what comes."""
        transcript = self.current_transcript()
        if transcript is not None:
            transcript.follow()

    async def reach_request(self, interaction_id: str | None = None) -> bool:
        """Move to the request that waits longest here (again: the next one), or to the one
        named; False when none waits here."""
        transcript = self.current_transcript()
        if transcript is None or not transcript.waiting:
            return False
        waiting = transcript.waiting
        focused = self.screen.focused
        within = [focused, *focused.ancestors] if focused is not None else []
        at = next((n for n, entry in enumerate(waiting) if entry.widget in within), -1)
        named = [entry for entry in waiting if entry.info.id == interaction_id]
        card = await transcript.card(named[0] if named else waiting[(at + 1) % len(waiting)])
        if card is not None:
            card.reach()
        return True

    def latest_command(self) -> CommandCell | None:
        """The latest command of the conversation shown."""
        transcript = self.current_transcript()
        return transcript.last_command() if transcript is not None else None

    def latest_answer(self) -> str | None:
        """The text of the latest answer in the conversation shown."""
        transcript = self.current_transcript()
        answers = transcript.query(AgentMessage) if transcript is not None else None
        return answers.last().text if answers else None

    async def jump(self, item_id: str) -> None:
        """Scroll to an item of the conversation shown (from the trace), and stay there."""
        transcript = self.current_transcript()
        cell = await transcript.reveal_key(item_id) if transcript is not None else None
        if transcript is not None and cell is not None:
            transcript.release_anchor()
            # After the layout: the cell may have been drawn just now, with those around it.
            transcript.call_after_refresh(
                transcript.scroll_to_widget, cell, animate=False, top=True
            )
            if cell.can_focus:
                self.screen.set_focus(cell)

    def refresh_lines(self, info: ConversationInfo | None) -> None:
        """The lines above the message box, for the conversation shown (`info`)."""
        self._info = info
        self.queue.show(self.current)
        self.get_child_by_type(WorkingLine).show(info)
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
        self.screen.set_focus(self.composer)
        self.follow()  # done reading where find went: back to what comes

    @on(Composer.MentionTyped)
    def _mention_typed(self, event: Composer.MentionTyped) -> None:
        if self.backend is not None and self.current is not None:
            self._find_files(self.current, event)

    @work(group="files", exclusive=True)
    @reported("Files could not be found")
    async def _find_files(self, conversation_id: str, event: Composer.MentionTyped) -> None:
        """Ask for the files that match an `@word`; they come as `FilesFound` events (the
        box never waits for them)."""
        assert self.backend is not None
        files = self.query_one(FileCompletion)
        transcript = self.transcript(conversation_id)
        files.searching(event.mention, transcript.cwd if transcript is not None else "")
        if not event.mention.query:
            return
        try:
            await self.backend.find_files(conversation_id, event.mention.query)
        except CodexDeckError as error:
            files.problem(event.mention, str(error))

    def files_found(self, event: FilesFound) -> None:
        """Files an `@` search found: into the list, if it is still for that query here."""
        if event.conversation_id == self.current:
            self.query_one(FileCompletion).show(event.query, list(event.files))

    @on(Composer.PasteRefused)
    def _paste_refused(self, event: Composer.PasteRefused) -> None:
        self.note(event.why)

    @work(group="send")
    @reported("Not sent")
    async def run(self, conversation_id: str, line: str, queued: str | None = None) -> None:
        """Run a line in the conversation that was in view when Enter was pressed; with
        `queued`, that text (typed as `line`) waits for the running turn instead. Sent, the
        line goes into the history; refused, it stays in the box, with why."""
        assert self.backend is not None
        created = None
        try:
            if queued is not None:
                outcome = await self.backend.submit(conversation_id, queued, "queue")
                ok, message = outcome.accepted, outcome.message
            else:
                result = await self.backend.execute(conversation_id, line)
                ok, message, created = result.ok, result.message, result.conversation_id
        except (CodexDeckError, OSError) as error:
            ok, message = False, why(error)
        if ok:
            self.composer.remember(line)
            self.note("")
        else:
            self.composer.give_back(line)
            self.note(f"Not sent: {message}" if message else "")
        self.post_message(self.Ran(self, line, ok, created))

    @work(group="diff")
    @reported("The diff could not be shown")
    async def show_diff(
        self, conversation_id: str, line: str, of: DiffOf, at: str | None = None
    ) -> None:
        """The diff /diff asks for (`line`, empty when a key asked), in a screen of its own,
        at the file `at` if given; when there is none, why (the line stays in the box)."""
        assert self.backend is not None
        try:
            view = await self.backend.diff(conversation_id, of)
        except CodexDeckError as error:
            if line:
                self.composer.give_back(line)
            self.note(f"Not shown: {error}")
            return
        if line:
            self.composer.remember(line)
        self.note("")
        self.post_message(self.DiffReady(view, at))

    @on(FindingLine.Open)
    def _open_finding(self, event: FindingLine.Open) -> None:
        if self.backend is not None and self.current is not None:
            self.show_diff(self.current, "", "tree", at=event.path)

    @on(Composer.ImagePasted)
    def _image_pasted(self, event: Composer.ImagePasted) -> None:
        if self.backend is not None and self.current is not None:
            self._attach_pasted(self.current, event.path)

    @work(group="send")
    @reported("The image was not attached")
    async def _attach_pasted(self, conversation_id: str, path: str) -> None:
        """Attach a pasted image path; when it cannot be, say why and type the path instead."""
        assert self.backend is not None
        result = await self.backend.execute(conversation_id, f"/image {path}")
        if result.ok:
            self.note("")
        else:
            self.note(f"Not attached: {result.message}")
            self.composer.insert(path)

    @on(Composer.StopPressed)
    def _stop_pressed(self) -> None:
        composer = self.composer
        if composer.held is not None:
            composer.release()
            self.note("")
        elif self.backend is None or self.current is None:
            return
        elif self._info is not None and self._info.state in BUSY_STATES:
            self._stop(self.current)
        elif not composer.text.strip():
            self._escape_when_idle(self.current)

    def _escape_when_idle(self, conversation_id: str) -> None:
        """Esc twice, quickly, with nothing running and nothing written: go back to an earlier
        message (the screen asks which)."""
        now = time.monotonic()
        if now - self._idle_escape > REWIND_SECONDS:
            self._idle_escape = now
            return
        self._idle_escape = 0.0
        assert self.backend is not None
        messages = [
            (event.turn_id, event.item.text)
            for event in self.backend.full_trace(conversation_id)
            if isinstance(event, ItemCompleted) and isinstance(event.item, UserMessageItem)
        ]
        if not messages:
            self.note("No earlier message to go back to.", error=False)
            return
        self.post_message(self.RewindAsked(conversation_id, messages))

    @work(group="rewind")
    @reported("Could not go back")
    async def rewind_to(self, conversation_id: str, chosen: tuple[str, str] | None) -> None:
        """Go back to before the chosen message: a new conversation, shown with the message
        in the box to edit."""
        if chosen is None or self.backend is None:
            return
        turn_id, text = chosen
        result = await self.backend.rewind(conversation_id, turn_id)
        if not result.ok:
            self.note(f"Not gone back: {result.message}")
            return
        self.composer.give_back(text)
        self.post_message(self.Ran(self, "", True, result.conversation_id))

    @work(group="send")
    @reported("The turn was not stopped")
    async def _stop(self, conversation_id: str) -> None:
        assert self.backend is not None
        await self.backend.stop(conversation_id)

    @on(InteractionCard.Answered)
    def _answered(self, event: InteractionCard.Answered) -> None:
        self._respond(event.card.info.id, event.answer, event.card.info.conversation_id)
        self.screen.set_focus(self.composer)

    @work(group="send")
    @reported("The answer was not sent")
    async def _respond(self, interaction_id: str, answer: Answer, conversation_id: str) -> None:
        if self.backend is not None:
            result = await self.backend.respond(interaction_id, answer, conversation_id)
            if not result.ok:
                self.notify(inert(result.message), severity="error", markup=False)

    @on(InteractionCard.Left)
    def _left_card(self) -> None:
        self.screen.set_focus(self.composer)
