"""The engine front ends drive: many conversations over one app-server, one event stream.

A facade: it wires the rooms (the connection, the conversation core, side chats, commands,
records) and hands each call to the room that does it."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path

import anyio
from anyio.abc import TaskGroup

from engine import protocol as wire
from engine.account import Account
from engine.commands.run import CommandLine, Rooms
from engine.connection import Attach, Connection, Reach, reach
from engine.conversations.choices import Choices
from engine.conversations.conversation import Conversations
from engine.conversations.core import Core
from engine.conversations.diffs import DiffOf, Diffs, DiffView
from engine.conversations.emitter import Emitter
from engine.conversations.files import FileSearch
from engine.conversations.goals import Goals
from engine.conversations.history import (
    HISTORY_TURNS,
    history_events,
    last_turns,
    traced_turns,
    turn_events,
)
from engine.conversations.history_pages import (
    EARLIER_ITEMS,
    FIRST_ITEMS,
    HistoryPages,
    Part,
    Prefetched,
    pages_of,
)
from engine.conversations.interactions import Answer, Interactions
from engine.conversations.journal import Journal
from engine.conversations.lifecycle import Lifecycle
from engine.conversations.link import Link
from engine.conversations.mcp import McpServers
from engine.conversations.notices import Notices
from engine.conversations.provider_probe import ProviderProbe
from engine.conversations.restore import Restorer
from engine.conversations.reverts import Reverts
from engine.conversations.review import Reviews
from engine.conversations.rewind import Rewinds
from engine.conversations.router import Router
from engine.conversations.rules import Rules
from engine.conversations.sandbox_leftovers import absent_here, remove_left_here
from engine.conversations.session import SessionInfo, session_info
from engine.conversations.threads import Threads
from engine.conversations.turns import SubmitMode, Turns
from engine.conversations.user_turns import UserTurns
from engine.errors import ConnectionClosed, RpcError
from engine.events import (
    ConversationInfo,
    ConversationJoined,
    EngineEvent,
    EngineStatus,
    InteractionInfo,
    Notice,
    SideChatInfo,
    StopOutcome,
)
from engine.hunks import Marks
from engine.records.export import export_jsonl
from engine.records.outputs import CommandOutputs, KeptOutput
from engine.records.search import SearchHit, search
from engine.records.store import Store
from engine.records.trace import Redactor
from engine.records.trace_spool import TraceSpool
from engine.results import CommandResult, SubmitOutcome
from engine.settings import Settings
from engine.side_chats.chat import SideChat
from engine.side_chats.manager import SideChats
from engine.side_chats.private import HereCodex, PrivateCodex
from engine.side_chats.questions import SideQuestions
from engine.transport.appserver import AppServer, Transport
from engine.transport.fanout import Subscription
from engine.transport.offline import OFFLINE_NOISE, is_offline
from engine.transport.process import Spawned
from engine.transport.tasks import task_group

__all__ = ["Attach", "Engine"]

SEARCH_HITS = 50
"""Hits a search returns at most."""


class Engine:
    """Conversations with Codex over one app-server. Build with `Engine.open(settings)`."""

    def __init__(
        self,
        settings: Settings,
        server: AppServer | None,
        tasks: TaskGroup,
        cwd: Path,
        private: PrivateCodex | None = None,
        store: Store | None = None,
        host: str | None = None,
    ) -> None:
        self._settings = settings
        self._tasks = tasks
        self._journal = Journal(store, settings.limits.trace_events_per_turn, Redactor.of(settings))
        self._outputs = CommandOutputs(settings.limits.command_output_bytes)
        self._spool = TraceSpool(Redactor.of(settings))
        self._emitter = Emitter(settings.limits.trace_events_per_turn, self._record, self._spool)
        self._conversations = Conversations(host)
        self._notices = Notices(self._emitter, self._conversations)
        self._interactions = Interactions()
        self.offline = is_offline(settings)
        """True when codex runs on the offline scripted model."""
        self.needs_sign_in = False
        """codex has no account and needs one (one attached to is used as it is, and the
        app offers to sign it in)."""
        self._link = Link(server, host=host)
        self._router = Router(
            self._emitter,
            self._conversations,
            self._interactions,
            lambda conversation: self._turns.start_next(conversation),
            self._journal,
            lambda conversation: self._provider_probe.check(conversation),
            quiet=OFFLINE_NOISE if self.offline else (),
            unknown_thread=self._unknown_thread,
        )
        self._prefetched = Prefetched()
        """The history of conversations brought back at start, asked of codex early."""
        self._adopting: set[str] = set()
        """Threads of other apps being looked up in the store (`_unknown_thread`)."""
        self._pages: dict[str, HistoryPages] = {}
        """How far back each conversation's history was read (by `history`, `earlier`)."""
        self._restorer = Restorer(
            settings,
            self._conversations,
            self._journal,
            self._router,
            self._emitter,
            self._link,
            self._notices.say,
        )
        self._side_chats = SideChats(
            self._emitter, lambda: self._link.server, private, settings.limits.side_answer_chars
        )
        core = Core(
            settings,
            self._conversations,
            self._router,
            self._emitter,
            self._journal,
            self._notices,
            self._interactions,
            tasks,
            self._link,
        )
        self._turns = Turns(core, self._restorer)
        self._provider_probe = ProviderProbe(core)
        self._connection = Connection(core, self._turns, self._restorer, self._side_chats)
        self._lifecycle = Lifecycle(core, self._turns, cwd, self._side_chats.close_all)
        self._account = Account(lambda: self._link.server)
        self._side_questions = SideQuestions(core, self._side_chats)
        self._reverts = Reverts(core, self._turns)
        self._threads = Threads(core, self._restorer, cwd)
        self._choices = Choices(core)
        self._files = FileSearch(core)
        self._diffs = Diffs(core)
        self._rewinds = Rewinds(core, self._restorer)
        rooms = Rooms(
            self._turns,
            UserTurns(core, self._turns, self._restorer),
            Goals(core, self._restorer),
            McpServers(core),
            self._diffs,
            Reviews(core, self._restorer),
            self._lifecycle,
            self._choices,
            self._threads,
            self._side_chats,
            self._side_questions,
            self._account,
            self._outputs,
            Rules(lambda: self._link.server),
        )
        self._command_line = CommandLine(core, rooms)

    @classmethod
    @asynccontextmanager
    async def open(
        cls,
        settings: Settings,
        *,
        cwd: Path | None = None,
        transport: Transport | None = None,
        attach: Attach | None = None,
        store: Store | None = None,
        early: Spawned | None = None,
        shared: bool | None = None,
        host: str | None = None,
        side_codex: PrivateCodex | None = None,
    ) -> AsyncIterator[Engine]:
        """Start an app-server for `settings` (or connect over `transport`, or `attach` to a
        running one, again whenever the connection drops) and yield the engine.

        `early` is an app-server spawned before the engine was imported (so that it starts
        meanwhile): it is taken up if it was started as `settings` and `cwd` ask, and closed
        otherwise.

        With a `store`, conversations are written to it and the ones it holds are brought
        back first; their threads are resumed, and each message that was in flight settled
        as its thread shows, beside the engine's use (`restored` waits for it; requests
        that act on those threads wait for it by themselves). A started app-server that
        dies is restarted (with backoff). On exit, pending interactions are declined and
        running turns stopped (on a `shared` codex, nothing is: see Connection.shut_down).
        An attached codex is shared unless `shared` says otherwise (one that `attach` starts
        for this engine alone, over ssh, ends with it). `host` names the machine codex runs
        on, among several (`engine.deck`): it is told with its conversations and its state.
        Side chats run in a private codex started beside the one codex-deck starts, else as
        `side_codex` says (on an ssh host, over ssh), else nowhere.

        A codex that cannot be reached at start, when it can be reached again later (started
        again, or attached to again), leaves the engine open without it: the conversations
        are shown as the store keeps them and codex is reached again with backoff (`online`
        is False meanwhile; a message waits for it as after a restart).

        Raises:
            CodexNotFound, CodexTooOld: codex could not be started.
            ConnectionClosed: codex could not be reached, and nothing would reach it again.
            SettingsError: the working directory is not there.
        """
        cwd = cwd or settings.codex.cwd or Path.cwd()
        reached = await reach(settings, cwd, transport, attach, early)
        left_behind: list[str] = []
        try:
            shared = attach is not None if shared is None else shared
            private = HereCodex(reached.launch) if reached.launch is not None else side_codex
            opened = cls._opened(settings, cwd, reached, store, shared, host, private)
            async with opened as engine:
                if reached.launch is not None:  # codex runs here: what it leaves, seen here
                    cwds = [str(cwd), *(info.cwd for info in engine.conversations())]
                    left_behind = absent_here(cwds)
                yield engine
        finally:
            # codex has ended: its sandbox's mount targets of a command that was still running
            # (in the background) were left behind as it was killed.
            remove_left_here(left_behind)

    @classmethod
    @asynccontextmanager
    async def _opened(
        cls,
        settings: Settings,
        cwd: Path,
        reached: Reach,
        store: Store | None,
        shared: bool,
        host: str | None,
        private: PrivateCodex | None,
    ) -> AsyncIterator[Engine]:
        # The connection is opened outside the engine's tasks and closed after them: they are
        # cancelled as the engine is left and must not be running when codex goes away; and
        # closed inside their cancelled scope, the connection's first wait raised that
        # cancellation in place of the error the engine was left with, and the scope then
        # swallowed it (an attached engine left by an error seemed to end well).
        async with AsyncExitStack() as connected:
            try:
                server: AppServer | None = await connected.enter_async_context(reached.first)
                unreached = ""
            except ConnectionClosed as error:
                if reached.reopen is None:
                    raise
                server, unreached = None, str(error)
            async with task_group() as tasks:
                engine = cls(settings, server, tasks, cwd, private, store, host)
                engine._link.shared = shared
                if server is None:
                    engine._connection.unreached(unreached, reached.again)
                else:
                    engine._connection.attach(server)
                if store is not None:
                    store.on_problem = engine._restorer.store_problem
                    tasks.start_soon(store.run)
                    # Nothing runs in a codex just started: ask its threads' history at once.
                    prefetch = engine._prefetched if reached.launch is not None else None
                    await engine._restorer.restore(tasks, prefetch)
                if reached.reopen is not None:
                    engine._connection.keep_alive(reached.reopen, reached.again)
                try:
                    yield engine
                finally:
                    with anyio.CancelScope(shield=True):
                        await engine._connection.shut_down()
                        engine._outputs.close()
                        engine._spool.close()
                        if store is not None:
                            await store.flush()
                    tasks.cancel_scope.cancel()

    def _unknown_thread(self, thread_id: str) -> None:
        """A thread of the codex in use that no conversation here has: on a codex other apps
        use too, codex tells every client of each thread's status (its turns only to those
        that resumed it); when another codex-deck on the same store runs a conversation on
        it, that conversation is followed here too (its row is in the store before its
        first turn starts: a message is recorded before it is sent)."""
        if not self._link.shared or self._journal.store is None or thread_id in self._adopting:
            return
        self._adopting.add(thread_id)
        self._tasks.start_soon(self._adopt, thread_id)

    async def _adopt(self, thread_id: str) -> None:
        try:
            conversation = await self._restorer.adopt(thread_id)
        finally:
            self._adopting.discard(thread_id)
        if conversation is not None:
            joined = ConversationJoined(**self._emitter.stamp(conversation.id))
            self._emitter.emit(joined)

    async def restored(self) -> None:
        """Wait until the conversations brought back from the store are resumed in codex and
        each message that was in flight is settled (at once without a store)."""
        await self._restorer.restored()

    @property
    def app_server_pid(self) -> int | None:
        """The app-server's process id, when codex-deck started it."""
        server = self._link.reached
        pid = getattr(server.transport, "pid", None) if server is not None else None
        return pid if isinstance(pid, int) else None

    def events(self) -> Subscription[EngineEvent]:
        """Every event from now on, in order (iterate with `async for`)."""
        return self._emitter.subscribe()

    def holds(self, conversation_id: str) -> bool:
        """The conversation is one of this engine's."""
        return conversation_id in self._conversations

    def conversations(self) -> list[ConversationInfo]:
        return [self._lifecycle.info(c) for c in self._conversations.all()]

    def pending_interactions(self, conversation_id: str | None = None) -> list[InteractionInfo]:
        return [p.info for p in self._interactions.pending(conversation_id)]

    async def new_conversation(
        self, title: str | None = None, cwd: Path | None = None
    ) -> ConversationInfo:
        """Create a conversation and start its Codex thread.

        If codex refuses the thread, the conversation is `failed` (a notice says why) and
        the next submission tries again.
        """
        return await self._lifecycle.new(title, cwd)

    def rename(self, conversation_id: str, title: str) -> ConversationInfo:
        return self._lifecycle.rename(conversation_id, title)

    async def archive(self, conversation_id: str) -> ConversationInfo:
        """Hide a conversation from the list (its thread is archived in codex too)."""
        return await self._lifecycle.archive(conversation_id)

    async def submit(
        self, conversation_id: str, text: str, mode: SubmitMode = "auto"
    ) -> SubmitOutcome:
        """Send a message: start a turn when idle, steer the running turn (`auto`), or queue it.

        Refused (nothing sent, a notice says why): input over codex's limit (TEXT_INPUT_CHARS
        characters), a full queue, or too many running conversations. Empty input is ignored.
        """
        return await self._turns.submit(conversation_id, text, mode)

    async def stop(self, conversation_id: str) -> StopOutcome:
        """Stop the running turn (or the one being prepared); queued messages are held.

        Returns `stopped` when the turn ended, `stop_requested` when codex was asked but the
        turn has not ended yet, `nothing_to_stop` when nothing runs.
        """
        return await self._turns.stop(conversation_id)

    def continue_queue(self, conversation_id: str) -> CommandResult:
        """Run the conversation's queued messages (they wait after a restart or a stop)."""
        return self._turns.continue_queue(conversation_id)

    async def reset(self, conversation_id: str) -> CommandResult:
        """Stop what runs, drop the queue, and start a new thread (generation + 1)."""
        return await self._turns.reset(conversation_id, self._side_chats.close_all)

    async def respond(
        self, reference: str, answer: Answer, conversation_id: str | None = None
    ) -> CommandResult:
        """Answer a pending interaction by id or unique id prefix.

        With `conversation_id`, the interaction must belong to that conversation. Nothing is
        sent unless the id is found, still pending, and the answer fits its kind.
        """
        return self._router.requests.respond(reference, answer, conversation_id)

    async def accept_with_reverts(
        self, interaction_id: str, marks: Marks, why: str
    ) -> CommandResult:
        """Accept the file change a request asks about and, once codex has applied it, take
        back the hunks marked (by file path, their places from 0), all or none, and tell
        codex which and `why`."""
        return self._reverts.accept_with_reverts(interaction_id, marks, why)

    async def revert_hunks(
        self, conversation_id: str, item_id: str, marks: Marks, why: str
    ) -> CommandResult:
        """Take back hunks of a file change applied earlier (the item `item_id`), all or
        none, and tell codex which and `why`."""
        return await self._reverts.revert_applied(conversation_id, item_id, marks, why)

    async def open_side_chat(self, conversation_id: str) -> SideChat:
        """Open a side chat: a throwaway fork of the conversation's thread in a private codex
        with every tool off; nothing asked there reaches the conversation.

        Raises:
            CodexDeckError: why it could not be opened (nothing is left running).
        """
        conversation = self._conversations.get(conversation_id)
        return await self._side_chats.open(self._tasks, conversation)

    def side_chats(self, conversation_id: str) -> list[SideChatInfo]:
        """The conversation's open side chats, oldest first."""
        return [side.info() for side in self._side_chats.of(conversation_id)]

    async def ask_aside(
        self,
        conversation_id: str,
        question: str,
        side_chat_id: str | None = None,
        new: bool = False,
    ) -> CommandResult:
        """Ask a side question and return once it is sent; the answer streams as events."""
        return await self._side_questions.ask_aside(conversation_id, question, side_chat_id, new)

    async def close_side_chat(
        self, conversation_id: str, side_chat_id: str | None = None
    ) -> CommandResult:
        """Close a side chat (the active one by default): its codex process ends."""
        return await self._side_questions.close_side_chat(conversation_id, side_chat_id)

    async def promote_side_chat(
        self, conversation_id: str, side_chat_id: str | None = None
    ) -> CommandResult:
        """Keep a side chat as a new conversation: a durable fork of the parent's thread."""
        return await self._side_questions.promote_side_chat(conversation_id, side_chat_id)

    def bring_home(
        self, conversation_id: str, side_chat_id: str | None = None, part: str | None = None
    ) -> CommandResult:
        """Bring a side chat's latest answer (or `part` of one of its answers) into the
        conversation, to go with its next message."""
        return self._side_questions.bring_home(conversation_id, side_chat_id, part)

    async def models(
        self, include_hidden: bool = False, conversation_id: str | None = None
    ) -> list[wire.ModelInfo]:
        """The models codex offers (`model/list`, every page); every conversation's codex is
        this one."""
        return await self._choices.models(include_hidden)

    async def find_files(self, conversation_id: str, query: str) -> None:
        """Search the conversation's working directory for `query` (for `@` mentions): the
        files come as `FilesFound` events; a search typed after another replaces it.

        Raises:
            FilesUnreadable: the directory cannot be searched (the message says why).
        """
        await self._files.find(conversation_id, query)

    async def diff(self, conversation_id: str, of: DiffOf = "tree") -> DiffView:
        """The working tree's changes against HEAD (git, where codex runs), or the latest
        turn's, one entry per file.

        Raises:
            DiffUnavailable: no git checkout, git failed, or no turn changed anything yet.
        """
        return await self._diffs.diff(conversation_id, of)

    async def rewind(self, conversation_id: str, before_turn_id: str) -> CommandResult:
        """Go back to before a turn (to send its message again, edited): a new conversation
        forked before it, whose id the result carries; the conversation keeps its path."""
        return await self._rewinds.rewind(conversation_id, before_turn_id)

    async def execute(self, conversation_id: str, line: str) -> CommandResult:
        """Run one line of input: a slash command, or text for the agent (once what was in
        flight before a restart is settled: /resend and /continue depend on it)."""
        await self.restored()
        return await self._command_line.execute(conversation_id, line)

    async def account(self) -> wire.AccountReadResult:
        """The Codex account codex is signed in with (if any), and whether it needs one."""
        return await self._account.read()

    async def signed_out(self) -> bool:
        """codex is up, needs an account for its models, and has none signed in."""
        if not self.online:
            return False
        try:
            account = await self.account()
        except (RpcError, ConnectionClosed):
            return False  # it went away meanwhile: as it comes back, it says what it needs
        return account.account is None and account.requires_openai_auth

    async def sign_in_with_api_key(self, api_key: str) -> CommandResult:
        """Give codex an API key to keep in its own auth store; codex-deck keeps nothing of it
        (not in events, the trace, the store or logs)."""
        return await self._account.sign_in_with_api_key(api_key)

    async def sign_in_with_device_code(self) -> wire.LoginStarted:
        """Start a ChatGPT sign-in with a device code: show `verification_url` and
        `user_code`; `SignInFinished` says how it ended.

        Raises:
            RpcError, ConnectionClosed: codex could not start it (its words).
        """
        return await self._account.sign_in_with_device_code()

    async def cancel_sign_in(self, login_id: str) -> None:
        await self._account.cancel_sign_in(login_id)

    async def sign_out(self) -> CommandResult:
        return await self._account.sign_out()

    async def read_thread(self, thread_id: str) -> wire.Thread:
        """A Codex thread as codex stores it, with its turns (any generation's thread)."""
        params = wire.ThreadReadParams(thread_id=thread_id, include_turns=True)
        return (await self._link.server.thread_read(params)).thread

    async def history(self, conversation_id: str, turns: int = HISTORY_TURNS) -> list[EngineEvent]:
        """The conversation's latest items as codex keeps them (a few hundred, of its last
        `turns` turns at most), as completed items and turns: for showing a conversation
        brought back from the store or opened from codex. Read back from the latest, so a
        long thread opens fast; `earlier` goes on from there.

        A codex that cannot list a thread's items gives its last `turns` turns whole (a
        notice first when it keeps earlier ones), and so does codex-deck's trace while
        codex cannot be asked."""
        conversation = self._conversations.get(conversation_id)
        self._pages.pop(conversation.id, None)
        if conversation.thread_id is None:
            return []
        thread_id = conversation.thread_id
        trace = self._emitter.trace(conversation.id)
        if self._link.status != "online":  # codex cannot be asked: as the trace kept them
            listed, more = traced_turns(trace.turn_ids(), trace.turn, turns)
            return history_events(conversation.id, listed, more, self._emitter.stamp, trace.turn)
        pages = await self._prefetched.take(conversation.id, thread_id) or pages_of(
            self._link, self._emitter, conversation.id, thread_id
        )
        try:
            parts = await pages.back(FIRST_ITEMS, turns)
        except RpcError:  # it cannot list a thread's items
            listed, more = await last_turns(self._link.server, thread_id, turns)
            return history_events(conversation.id, listed, more, self._emitter.stamp, trace.turn)
        except ConnectionClosed:
            return []
        self._pages[conversation.id] = pages
        return self._part_events(conversation.id, parts)

    async def earlier(self, conversation_id: str) -> list[EngineEvent]:
        """The items before those `history` and `earlier` gave (a few hundred more, whole
        turns where they fit), in the same shape; none when codex keeps no earlier ones.

        Raises:
            RpcError, ConnectionClosed: codex could not list them (asking again goes on).
        """
        pages = self._pages.get(conversation_id)
        if pages is None or not pages.more:
            return []
        return self._part_events(conversation_id, await pages.back(EARLIER_ITEMS))

    def keeps_earlier(self, conversation_id: str) -> bool:
        """Codex keeps items of the conversation before those shown, that `earlier` gives."""
        pages = self._pages.get(conversation_id)
        return pages is not None and pages.more

    def let_go(self, conversation_id: str, through_turn: str) -> bool:
        """The front end let go of the conversation's turns up to `through_turn` (and of
        those `history` and `earlier` gave before): from now on `earlier` reads them back
        from codex, from that turn on. False when it cannot (the conversation has no thread
        yet): then the front end keeps them."""
        conversation = self._conversations.get(conversation_id)
        if conversation.thread_id is None:
            return False
        self._pages[conversation.id] = pages_of(
            self._link, self._emitter, conversation.id, conversation.thread_id, through_turn
        )
        return True

    def _part_events(self, conversation_id: str, parts: list[Part]) -> list[EngineEvent]:
        stamp = self._emitter.stamp
        return [
            event
            for part in parts
            for event in turn_events(conversation_id, part.turn, part.items, part.ends, stamp)
        ]

    def session_info(self, conversation_id: str) -> SessionInfo:
        """Ids, generation, thread, model, provider, cwd, sandbox, approvals, tokens."""
        conversation = self._conversations.get(conversation_id)
        return session_info(conversation, self._settings, self._router.reports.limits.windows())

    @property
    def online(self) -> bool:
        """codex is reached and running (not away, being reached again, or stopping)."""
        return self._link.status == "online"

    def now(self) -> float:
        """The time a running turn's clock is shown at: now."""
        return time.time()

    def engine_status(self) -> EngineStatus | None:
        """How codex is, as last told (None: nothing told yet; it is online)."""
        return self._connection.status

    def host_states(self) -> list[EngineStatus]:
        """None: one engine is one codex (`engine.deck` holds several)."""
        return []

    def general_notices(self) -> list[Notice]:
        """What codex-deck said that belongs to no conversation (a store moved aside, codex
        restarted), oldest first; also what it said while opening, before anyone listened."""
        return [e for e in self._emitter.general.all_events() if isinstance(e, Notice)]

    async def search(self, query: str, limit: int = SEARCH_HITS) -> list[SearchHit]:
        """Where the conversations (archived ones too, from the store) say `query`, in
        messages, reasoning, commands, their output and diffs; newest first."""
        query = query.strip()
        if not query:
            return []
        kept = [
            (conversation.title, self._emitter.trace(conversation.id).all_events())
            for conversation in self._conversations.all()
            if not conversation.archived
        ]
        return await search(kept, self._journal.store, query, limit)

    def full_trace(self, conversation_id: str) -> list[EngineEvent]:
        """Every kept event of the conversation in order, earlier runs' included."""
        return self._emitter.trace(self._conversations.get(conversation_id).id).all_events()

    def command_output(self, conversation_id: str, item_id: str | None = None) -> KeptOutput:
        """Where a command's whole output is kept (the screen keeps only its latest part);
        without an item, the conversation's latest command's."""
        conversation = self._conversations.get(conversation_id)
        return self._outputs.kept(conversation.id, item_id)

    def trace(self, conversation_id: str, turn_id: str | None) -> list[EngineEvent]:
        """The events of one turn (None: between turns), with a `TraceGap` where trimmed."""
        return self._emitter.trace(self._conversations.get(conversation_id).id).turn(turn_id)

    async def export_trace(self, conversation_id: str, path: Path) -> int:
        """Write the conversation's trace as JSONL with known secrets redacted; returns lines."""
        events = self._emitter.trace(self._conversations.get(conversation_id).id).all_events()
        return await export_jsonl(path, events, Redactor.of(self._settings))

    async def export_markdown(self, conversation_id: str, path: Path) -> int:
        """Write the conversation as Markdown with known secrets redacted; returns its size."""
        return await self._lifecycle.export_markdown(conversation_id, path)

    def redact(self, text: str) -> str:
        """`text` with known secrets (and anything shaped like an API key) replaced."""
        return Redactor.of(self._settings)(text)

    def _record(self, event: EngineEvent, turn_id: str | None) -> None:
        """Every emitted event: into the store's journal, and command output into its file."""
        self._journal.event(event, turn_id)
        self._outputs.event(event)
