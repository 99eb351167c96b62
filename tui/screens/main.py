"""The main screen: conversations, transcript, trace, composer and status bar."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

import anyio
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal

from engine import SearchHit
from engine.commands import kinds
from engine.commands.parse import parsed
from engine.events import (
    ConversationInfo,
    ConversationJoined,
    ConversationUpdated,
    EngineEvent,
    EngineStatus,
    FilesFound,
    HostJoined,
    InteractionRequested,
    McpServerChanged,
    Notice,
    SideChatAnswered,
    SideChatAsked,
    SideChatDelta,
    SideChatUpdated,
    TokenUsageUpdated,
    UsageLimitsUpdated,
)
from engine.frontend import Backend
from engine.replay import ReplayBackend
from engine.results import CommandResult
from tui.bridge import AttentionNeeded, EngineBatch
from tui.entries import FileChangeEntry
from tui.reported import reported
from tui.screens.hunks import HunkReview, Reviewed
from tui.screens.inbox import Inbox, named, oldest_first
from tui.screens.pickers import PickingScreen
from tui.screens.prompt import PromptScreen
from tui.screens.raw import RawEventScreen
from tui.text import inert
from tui.widgets.approval import ApprovalCard
from tui.widgets.card import InteractionCard
from tui.widgets.composer import Composer
from tui.widgets.conversation_list import ConversationList, requests
from tui.widgets.conversation_view import ConversationView
from tui.widgets.draft import Draft
from tui.widgets.key_bar import KeyBar
from tui.widgets.side_panel import SidePanel
from tui.widgets.status_bar import StatusBar
from tui.widgets.trace_pane import FOR_THE_FRONT_END, TracePane

SIDE_EVENTS = (SideChatUpdated, SideChatAsked, SideChatDelta, SideChatAnswered)


class MainScreen(PickingScreen):
    BINDINGS = [
        Binding("ctrl+n", "new_conversation", "New", id="conversation.new"),
        Binding("ctrl+down,alt+down", "next_conversation(1)", "Next", id="conversation.next"),
        Binding("ctrl+up,alt+up", "next_conversation(-1)", "Previous", id="conversation.previous"),
        Binding("f2", "rename", "Rename", id="conversation.rename"),
        Binding("f8", "archive", "Archive", id="conversation.archive"),
        Binding("ctrl+t", "toggle_trace", "Trace", id="trace.toggle"),
        # Keys the message box binds too (select line, redo) are the app's wherever the focus is.
        Binding("f6", "trace_full", "Trace full", id="trace.full", show=False, priority=True),
        Binding("ctrl+b", "toggle_list", "List", id="list.toggle", show=False),
        Binding("ctrl+o", "toggle_output", "Output", id="command.latest"),
        Binding(
            "ctrl+y", "copy_answer", "Copy answer", id="copy.answer", show=False, priority=True
        ),
        Binding("ctrl+l", "focus_composer", "Composer", id="composer.focus", show=False),
        Binding("f3", "session", "Session", id="conversation.session", show=False),
        Binding("f4", "toggle_side", "Side", id="side.toggle"),
        Binding("ctrl+f,slash", "find", "Find", id="find.open", show=False),
        Binding("ctrl+home", "show_earlier", "Earlier", id="transcript.earlier", show=False),
        # Before the message box's own (it is short): a field that scrolls keeps its own.
        Binding(
            "pageup", "page(-1)", "Page up", id="transcript.page_up", show=False, priority=True
        ),
        Binding(
            "pagedown", "page(1)", "Page down", id="transcript.page_down", show=False, priority=True
        ),
        Binding("ctrl+g", "go_to_request", "Answer", id="request.next"),
        Binding("alt+i", "inbox", "Inbox", id="request.inbox", show=False, priority=True),
        Binding("ctrl+end", "follow", "Follow", id="transcript.follow", show=False),
    ]

    def __init__(
        self,
        welcome: str,
        demo_tour: str,
        conversation: str | None = None,
        typed: Callable[[], Draft] | None = None,
    ) -> None:
        super().__init__()
        self._typed = typed
        """What was typed before this screen was shown, to carry on with."""
        self.backend: Backend | None = None
        self._anything_waits = False
        self._asked_for = conversation
        """The conversation to show first (`--conversation`), if any."""
        self._welcome = welcome
        """What a new conversation's transcript says first (the demo's tour, offline)."""
        self._demo_tour = demo_tour
        self._infos: dict[str, ConversationInfo] = {}
        self._hosts: dict[str, EngineStatus] = {}
        """Each host's state as last told (`[hosts]`; none: one codex)."""
        self.mounted = anyio.Event()
        """Set once the screen's widgets exist (the engine may be ready before they are)."""

    def compose(self) -> ComposeResult:
        with Horizontal(id="body"):
            yield ConversationList()
            yield ConversationView(self._welcome)
            yield SidePanel()
            yield TracePane()
        yield StatusBar()
        yield KeyBar()

    def on_screen_suspend(self) -> None:
        """A screen came on top, with keys of its own: these are not in force meanwhile."""
        self.query_one(KeyBar).add_class("-behind")

    def on_screen_resume(self) -> None:
        self.query_one(KeyBar).remove_class("-behind")

    def on_mount(self) -> None:
        if self._typed is not None:
            self.view.take_draft(self._typed())
        self.query_one(TracePane).display = False
        self._side_shown(False)
        self._refresh_lines()
        self.mounted.set()

    @property
    def status(self) -> StatusBar:
        return self.query_one(StatusBar)

    @property
    def current(self) -> str | None:
        """The conversation shown."""
        return self.view.current

    async def backend_ready(
        self, backend: Backend, first: Awaitable[ConversationInfo] | None
    ) -> None:
        """The engine is up: show what it has, or `first`, the conversation started because
        it had none."""
        self.backend = backend
        # The clocks of a running turn read the backend's time: a replay's is its recording's.
        self.status.clock = self.query_one(ConversationList).clock = backend.now
        self.view.working.clock = backend.now
        self.query_one(SidePanel).backend = backend
        self.query_one(TracePane).backend = backend
        if backend.offline:
            self.view.welcome = self._demo_tour
        started = await first if first is not None else None  # frames go on while codex answers
        # Shown up in one frame, painted at once (not half of it, then the rest a frame later).
        async with self.changing():
            await self._show_engine_up(backend, started)

    async def _show_engine_up(self, backend: Backend, started: ConversationInfo | None) -> None:
        """What the engine has, or the conversation `started` for the user, shown, and the
        engine said to be up."""
        if started is not None:
            await self._update_conversation(started)
        else:
            for info in backend.conversations():
                await self._update_conversation(info)
                await self._show_history(info.id, recovered=True)
        ids = [info.id for info in backend.conversations()]
        shown = self.current or ids[0]
        if self._asked_for is not None:
            matches = [i for i in ids if i.startswith(self._asked_for)]
            if len(matches) == 1:
                shown = matches[0]
            else:
                self._note(f"No single conversation's id starts with {self._asked_for!r}.")
        await self.show_conversation(shown)
        said = backend.general_notices()
        transcript = self.view.transcript(shown)
        if said and transcript is not None:
            await transcript.apply(list(said))
        for notice in said:
            if notice.level == "error":
                self.notify(inert(notice.text), severity="error", markup=False)
        for state in backend.host_states():
            self._hosts[state.host or ""] = state
            self.query_one(ConversationList).host_state(state)
        self.view.composer.hosts = tuple(self._hosts)
        status = backend.engine_status()
        if isinstance(backend, ReplayBackend):
            self.status.set_engine_state("replay (read-only)")
        elif status is not None and status.status != "online":
            self._engine_status(status)
        else:
            self.status.set_engine_state("offline demo" if backend.offline else "codex online")
        self.view.engine_up(backend, status.detail if status and status.coming_back else "")
        self.app.refresh_bindings()  # the keys that work now (a replay's) into the key bar

    @property
    def draft(self) -> Draft:
        """What is written in the composer."""
        return self.view.composer.draft

    def backend_failed(self, state: str, why: str) -> None:
        """The engine could not start (`state` for the status bar): say why; what is written
        stays, held no longer."""
        self.status.set_engine_state(state)
        self.view.engine_failed(why)

    def _engine_status(self, event: EngineStatus) -> None:
        """How codex is, in the status bar; a message held for it goes as it comes back.
        Of several hosts, the list shows each one's, and the status bar and the message box
        follow the host of the conversation shown."""
        if event.host is not None:
            self._hosts[event.host] = event
            self.view.composer.hosts = tuple(self._hosts)
            self.query_one(ConversationList).host_state(event)
            if event.host != self._host_shown():
                return
        detail = "" if event.status == "online" else f" — {event.detail}"
        host = f"{event.host}: " if event.host is not None else ""
        self.status.set_engine_state(f"{host}codex {event.status}{detail}")
        if event.coming_back:
            self.view.codex_away(event.detail)
        elif event.status == "online":
            self.view.codex_away("")
        elif event.status == "failed":
            self.view.codex_lost(event.detail)

    async def on_engine_batch(self, message: EngineBatch) -> None:
        if not self.is_attached:
            return  # a main screen replaced (the app moved to another codex)
        by_conversation: dict[str, list[EngineEvent]] = {}
        queue = self.view.queue
        for event in message.events:
            if isinstance(event, ConversationUpdated):
                await self._update_conversation(event.info)
            elif isinstance(event, EngineStatus):
                self._engine_status(event)
            elif isinstance(event, HostJoined):
                await self._host_joined(event.host)
                continue
            elif isinstance(event, ConversationJoined):
                await self._conversation_joined(event.conversation_id)
            elif isinstance(event, McpServerChanged):
                self.status.mcp_server(event.name, event.status)
            elif isinstance(event, InteractionRequested):
                self._attention(event)
            elif isinstance(event, FilesFound):
                self.view.files_found(event)
                continue  # for the message box only: not the transcript's, not the trace's
            else:
                queue.take(event)
            if isinstance(event, Notice) and event.conversation_id is None:
                if event.level == "error":
                    self.notify(inert(event.text), severity="error", markup=False)
                if self.current is not None:
                    by_conversation.setdefault(self.current, []).append(event)
            elif event.conversation_id is not None:
                by_conversation.setdefault(event.conversation_id, []).append(event)
        await self.view.apply(by_conversation)
        side_events = [e for e in message.events if isinstance(e, SIDE_EVENTS)]
        if side_events:
            await self._side_events(side_events)
        trace = self.query_one(TracePane)
        trace.add([e for e in message.events if not isinstance(e, FOR_THE_FRONT_END)])
        changed = ConversationUpdated | TokenUsageUpdated | UsageLimitsUpdated
        if any(isinstance(e, changed) for e in message.events):
            self._refresh_status()
        self._refresh_lines()
        if isinstance(self.backend, ReplayBackend):
            # A replay's clock moves with what it plays: every clock shows the same moment.
            self.status.tick()
            self.query_one(ConversationList).tick()

    async def _side_events(self, events: Sequence[EngineEvent]) -> None:
        panel = self.query_one(SidePanel)
        await panel.apply(events)
        asked_here = any(
            isinstance(e, SideChatAsked) and e.conversation_id == self.current for e in events
        )
        if asked_here and not panel.display:
            self._side_shown(True)

    def _attention(self, event: InteractionRequested) -> None:
        if event.conversation_id != self.current:
            info = self._infos.get(event.conversation_id or "")
            name = named(info) if info is not None else "a conversation"
            assert self.backend is not None
            waiting = requests(len(self.backend.pending_interactions()))
            text = f"codex-deck: {name} needs an answer ({waiting}: alt+i)"
            self.post_message(AttentionNeeded(text))

    def _host_shown(self) -> str | None:
        """The host of the conversation shown (None: one codex, or nothing shown yet)."""
        info = self._infos.get(self.current or "")
        return info.host if info is not None else None

    async def _host_joined(self, host: str) -> None:
        """A host's engine opened after the rest: show its conversations."""
        if self.backend is None:
            return
        for info in self.backend.conversations():
            if info.host == host and info.id not in self._infos:
                await self._update_conversation(info)
                await self._show_history(info.id, recovered=True)

    async def _conversation_joined(self, conversation_id: str | None) -> None:
        """Another app's conversation on a codex both use is followed here: list it, with
        what its thread holds so far."""
        if self.backend is None:
            return
        for info in self.backend.conversations():
            if info.id == conversation_id:
                await self._update_conversation(info)
                await self._show_history(info.id, recovered=True)

    async def _update_conversation(self, info: ConversationInfo) -> None:
        self._infos[info.id] = info
        self.query_one(ConversationList).update_conversation(info)
        if self.view.transcript(info.id) is None:
            await self.view.add(info)
            transcript = self.view.transcript(info.id)
            if transcript is not None and self.backend is not None:
                transcript.reads_earlier_from(self.backend)
        if info.queued == 0:
            self.view.queue.emptied(info.id)
        if info.id == self.current:
            self._refresh_lines()

    def action_find(self) -> None:
        """Find text in the conversation shown (ctrl+f, or / outside the composer)."""
        self.view.find_bar.open()

    async def search_conversations(self, query: str) -> list[SearchHit]:
        """The palette's search of every conversation (none before the engine is up)."""
        return [] if self.backend is None else await self.backend.search(query)

    async def open_search_hit(self, hit: SearchHit, query: str) -> None:
        """Show the conversation of a hit from the palette's search, finding `query` in it
        (an archived one is brought back first)."""
        if self.backend is None or self.current is None:
            return
        if hit.archived:
            result = await self.backend.execute(self.current, f"/unarchive {hit.conversation_id}")
            if not result.ok or result.conversation_id is None:
                self.notify(inert(result.message), severity="error", markup=False)
                return
            await self._show_created(result.conversation_id)
        elif hit.conversation_id in self._infos:
            await self.show_conversation(hit.conversation_id)
        if hit.side_chat_id is None:
            self.view.find_bar.open(query)
            return
        panel = self.query_one(SidePanel)
        if panel.choose(hit.side_chat_id):
            self._side_shown(True)
        else:
            self.notify(
                f"Side chat {hit.side_chat_id} is closed; it said: {hit.excerpt}", markup=False
            )

    def action_follow(self) -> None:
        """Back to the end of the conversation, following what comes (ctrl+end)."""
        self.view.follow()

    async def _show_created(self, conversation_id: str) -> None:
        """Show a conversation a command just made (its transcript may not exist yet)."""
        assert self.backend is not None
        for info in self.backend.conversations():
            if info.id == conversation_id:
                await self._update_conversation(info)
        await self._show_history(conversation_id)
        await self.show_conversation(conversation_id)

    async def _show_history(self, conversation_id: str, recovered: bool = False) -> None:
        """Put the turns codex keeps for the conversation into its transcript; for one brought
        back at start, merged by time with what codex-deck said of it (and its trace)."""
        transcript = self.view.transcript(conversation_id)
        if transcript is None or self.backend is None:
            return
        events = await self.backend.history(conversation_id)
        if recovered:
            said = self.backend.full_trace(conversation_id)
            notices = [e for e in said if isinstance(e, Notice)]
            events = sorted([*events, *notices], key=lambda event: event.at)
        await transcript.apply(events)
        transcript.reads_earlier_from(self.backend)

    async def show_conversation(self, conversation_id: str) -> None:
        before = self._host_shown()
        async with self.changing():  # painted once, all of it shown
            await self.view.show(conversation_id)
            self.query_one(ConversationList).show(conversation_id)
            self.query_one(TracePane).show(conversation_id)
            self.query_one(SidePanel).show(conversation_id)
            self._refresh_status()
            self._refresh_lines()
            shown = self._host_shown()
            if shown != before and shown in self._hosts:
                self._engine_status(self._hosts[shown])
            if self.view.focus_in_transcripts():
                self.set_focus(self.view.composer)  # nothing of the other one keeps keys

    def _refresh_lines(self) -> None:
        """The lines above the message box, and ctrl+g in the key bar while something waits
        for an answer anywhere."""
        self.view.refresh_lines(self._infos.get(self.current or ""))
        transcript = self.view.current_transcript()
        here = transcript is not None and bool(transcript.waiting)
        anywhere = here or any(i.pending_interactions for i in self._infos.values())
        if anywhere != self._anything_waits:
            self._anything_waits = anywhere
            self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "go_to_request":
            return self._anything_waits
        return True

    async def action_go_to_request(self) -> None:
        """Move to the request that waits longest here (ctrl+g), or, when none waits here, to
        the one that waits longest anywhere; from a card, to the next request in the order
        they were asked, in whichever conversation (and around again): the inbox's order."""
        if self.backend is None:
            return
        around = self.focused.ancestors_with_self if self.focused is not None else []
        card = next((w for w in around if isinstance(w, InteractionCard) and not w.resolved), None)
        if card is None and await self.view.reach_request():
            return
        waiting = [info.id for info in oldest_first(self.backend.pending_interactions())]
        if not waiting:
            return
        at = waiting.index(card.info.id) if card is not None and card.info.id in waiting else -1
        await self.go_to_interaction(waiting[(at + 1) % len(waiting)])

    def action_inbox(self) -> None:
        """Every request waiting for an answer, oldest first (alt+i, /inbox); the one chosen
        is gone to, and answered on its card."""
        if self.backend is None:
            return
        inbox = Inbox(self.backend.pending_interactions(), dict(self._infos), self.backend.now)
        self.app.push_screen(inbox, self._go_to_interaction)

    @on(ApprovalCard.ReviewAsked)
    def _review_asked(self, event: ApprovalCard.ReviewAsked) -> None:
        """r on a file change's card: the change hunk by hunk; accepted with those marked
        taken back once the user is done there (nothing is answered otherwise)."""
        info = event.card.info
        review = HunkReview(
            f"Accept with hunks taken back? [{info.id}]  Mark those to take back.",
            info.changes,
            "accept, then take the marked hunks back",
        )

        def reviewed(done: Reviewed | None) -> None:
            if done is not None and self.backend is not None:
                self._send_reverts(self.backend.accept_with_reverts(info.id, done.marks, done.why))
                self.set_focus(self.view.composer)  # as after any answer on a card

        self.app.push_screen(review, reviewed)

    def review_applied(self, back: int = 1) -> None:
        """/revert [N]: a change codex applied here (the Nth latest), hunk by hunk; the hunks
        marked are taken back once the user is done there."""
        transcript = self.view.transcript(self.current or "")
        applied = [
            entry
            for entry in (transcript.entries if transcript is not None else [])
            if isinstance(entry, FileChangeEntry) and entry.status == "completed"
        ]
        if len(applied) < back or self.backend is None or self.current is None:
            count = len(applied)
            self._note(
                f"Only {count} change{'s' if count != 1 else ''} codex applied here "
                "(shown so far) to take hunks back of."
                if count
                else "No change codex applied here yet to take hunks back of."
            )
            return
        entry, conversation_id = applied[-back], self.current
        which = "the latest change" if back == 1 else f"the change {back} back"
        review = HunkReview(
            f"Take back hunks of {which} codex applied here? Mark them.",
            tuple(entry.item.changes),
            "take the marked hunks back",
        )

        def reviewed(done: Reviewed | None) -> None:
            if done is not None and self.backend is not None:
                item = entry.item.id
                self._send_reverts(
                    self.backend.revert_hunks(conversation_id, item, done.marks, done.why)
                )

        self.app.push_screen(review, reviewed)

    @work(group="reverts")
    @reported("The hunks were not taken back")
    async def _send_reverts(self, sending: Awaitable[CommandResult]) -> None:
        result = await sending
        if not result.ok:
            self.notify(inert(result.message), severity="error", markup=False)

    def _go_to_interaction(self, interaction_id: str | None) -> None:
        if interaction_id is not None:
            self.run_worker(self.go_to_interaction(interaction_id), group="inbox")

    async def go_to_interaction(self, interaction_id: str) -> None:
        """Show the conversation where the request waits, and move to its card."""
        if self.backend is None:
            return
        found = [i for i in self.backend.pending_interactions() if i.id == interaction_id]
        if not found:
            self.notify("That request no longer waits for an answer.", severity="warning")
            return
        if found[0].conversation_id != self.current:
            await self.show_conversation(found[0].conversation_id)
        await self.view.reach_request(interaction_id)

    def _refresh_status(self) -> None:
        if self.backend is None or self.current is None:
            return
        self.status.show(self.backend.session_info(self.current), self._infos.get(self.current))

    @on(Composer.Submitted)
    def _submitted(self, event: Composer.Submitted) -> None:
        if self.view.held(event) or self.backend is None or self.current is None:
            return
        command = parsed(event.text)
        if isinstance(command, kinds.Quit):
            self.run_worker(self.app.run_action("quit"), group="quit")
            return
        if isinstance(command, kinds.Inbox):
            self.action_inbox()
            return
        if isinstance(command, kinds.Revert):
            self.review_applied(command.back)
            return
        if isinstance(command, kinds.AccountCommand) and command.action == "login":
            offer = getattr(self.app, "offer_sign_in", None)
            if offer is not None:
                offer("Sign in to Codex: codex keeps what you give it; codex-deck keeps nothing.")
            return
        ran = self.view.latest_command()
        if isinstance(command, kinds.Diff):
            self.view.show_diff(self.current, event.text, command.of)
            return
        if isinstance(command, kinds.Output) and ran is not None:
            self.view.page_output(ran.entry)
            return
        if isinstance(command, kinds.Model) and command.name is None:
            self.pick_model(self.current, event.text, command.hidden)
        elif event.mode == "queue" and isinstance(command, kinds.Say):
            self.view.run(self.current, event.text, queued=command.text)
        else:
            self.view.run(self.current, event.text)

    @on(ConversationView.Ran)
    async def _ran(self, event: ConversationView.Ran) -> None:
        command = parsed(event.line)
        if event.created is not None:
            await self._show_created(event.created)
        elif event.ok and isinstance(command, kinds.Side) and command.question:
            self._side_shown(True)
            self.query_one(SidePanel).focus_input()

    def _note(self, text: str, error: bool = True) -> None:
        self.view.note(text, error)

    @on(SidePanel.Made)
    async def _side_made(self, event: SidePanel.Made) -> None:
        await self._show_created(event.conversation_id)

    @on(ConversationList.Chosen)
    async def _chosen(self, event: ConversationList.Chosen) -> None:
        await self.show_conversation(event.conversation_id)
        self.set_focus(self.view.composer)

    @on(TracePane.Jump)
    async def _jump(self, event: TracePane.Jump) -> None:
        await self.view.jump(event.item_id)

    @on(TracePane.ShowRaw)
    def _raw(self, event: TracePane.ShowRaw) -> None:
        self.app.push_screen(RawEventScreen(event.event))

    @work(group="send")
    @reported("No new conversation was started")
    async def action_new_conversation(self) -> None:
        if self.backend is None:
            return
        count = len(self._infos) + 1
        host = self._host_shown()
        if host is not None and self.current is not None:  # on the host in view
            made = await self.backend.execute(self.current, f"/new @{host} Conversation {count}")
            if not made.ok or made.conversation_id is None:
                self.notify(inert(made.message), severity="error", markup=False)
                return
            await self._show_created(made.conversation_id)
            self.set_focus(self.view.composer)
            return
        created = await self.backend.new_conversation(f"Conversation {count}")
        await self._update_conversation(created)
        await self.show_conversation(created.id)
        self.set_focus(self.view.composer)

    async def action_next_conversation(self, step: int) -> None:
        target = self.query_one(ConversationList).neighbour(step)
        if target is not None:
            await self.show_conversation(target)

    def action_rename(self) -> None:
        if self.current is None or self.backend is None:
            return
        info = self._infos[self.current]

        def rename(title: str | None) -> None:
            if title and self.backend is not None and self.current is not None:
                self.backend.rename(self.current, title)

        self.app.push_screen(PromptScreen("New title:", info.title), rename)

    @work(group="send")
    @reported("The conversation was not archived")
    async def action_archive(self) -> None:
        if self.backend is None or self.current is None:
            return
        archived = self.current
        await self.backend.archive(archived)
        target = self.query_one(ConversationList).neighbour(1)
        if target is not None and target != archived:
            await self.show_conversation(target)

    def action_toggle_output(self) -> None:
        """Open or close the latest command's output (ctrl+o)."""
        command = self.view.latest_command()
        if command is not None:
            command.action_toggle_output()

    async def action_page(self, pages: int) -> None:
        """A page up or down the conversation in view (up to where its widgets begin), or of
        the list or table that has the focus and scrolls (the trace pane's, say)."""
        focused = self.focused
        if focused not in (None, self.view.composer) and focused.allow_vertical_scroll:
            await focused.run_action("page_up" if pages < 0 else "page_down")
            return
        transcript = self.view.current_transcript()
        if transcript is not None:
            await transcript.page(pages)

    async def action_show_earlier(self) -> None:
        """Bring back older entries of the conversation in view."""
        transcript = self.view.current_transcript()
        if transcript is not None:
            await transcript.action_show_earlier()

    def action_copy_answer(self) -> None:
        answer = self.view.latest_answer()
        if answer is not None:
            self.app.copy_to_clipboard(answer)
            self.notify("Copied the last answer (OSC 52).")

    @work(group="send")
    @reported("The session was not shown")
    async def action_session(self) -> None:
        """What the conversation runs on, said in it (F3, as /session)."""
        if self.backend is not None and self.current is not None:
            await self.backend.execute(self.current, "/session")
