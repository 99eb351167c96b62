"""The engine front ends drive: many conversations over one app-server, one event stream."""

from __future__ import annotations

import contextlib
import json
import os
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Literal

import anyio
from anyio.abc import TaskGroup

from engine import protocol as wire
from engine.commands.run import CommandLine
from engine.conversations.choices import Choices
from engine.conversations.conversation import (
    Conversation,
    Conversations,
)
from engine.conversations.core import Core
from engine.conversations.emitter import Emitter
from engine.conversations.history import HISTORY_TURNS, Prefetched, history_events, last_turns
from engine.conversations.interactions import Answer, AnswerDoesNotFit, Interactions
from engine.conversations.journal import Journal
from engine.conversations.notices import Notices, too_long
from engine.conversations.restore import Restorer
from engine.conversations.router import Router
from engine.conversations.session import SessionInfo, session_info
from engine.conversations.threads import Threads
from engine.conversations.turns import SubmitMode, Turns
from engine.errors import CodexDeckError, ConnectionClosed, RpcError
from engine.events import (
    BUSY_STATES,
    ConversationInfo,
    EngineEvent,
    EngineStatus,
    InteractionInfo,
    Notice,
    SideChatInfo,
    StopOutcome,
)
from engine.records.export import markdown, write_private
from engine.records.outputs import CommandOutputs, KeptOutput
from engine.records.recording import RecordingError, event_from_json
from engine.records.search import SearchHit, like_pattern, search_events
from engine.records.store import Store
from engine.records.trace import Redactor, jsonl
from engine.results import CommandResult, SubmitOutcome
from engine.settings import Settings
from engine.side_chats.chat import SideChat
from engine.side_chats.manager import SideChats
from engine.side_chats.questions import SideQuestions
from engine.transport.appserver import (
    AppServer,
    Transport,
    open_app_server,
    spawn_app_server,
    typed,
)
from engine.transport.binary import find_codex
from engine.transport.fanout import Subscription
from engine.transport.launch import Launch, launch_for
from engine.transport.offline import OFFLINE_NOISE, OFFLINE_PROVIDER
from engine.transport.process import Spawned
from engine.transport.rpc import Incoming, Notification
from engine.transport.tasks import task_group

SHUTDOWN_SECONDS = 3.0
SEARCH_HITS = 50
"""Hits a search returns at most."""
RESTART_FIRST_DELAY = 0.5
RESTART_MAX_DELAY = 10.0

Attach = Callable[[], Awaitable[Transport]]
"""Makes a new connection to a running app-server (`engine.transport.websocket.connect`, bound)."""
Reopen = Callable[[], AbstractAsyncContextManager[AppServer]]


def known_secrets(settings: Settings) -> list[str]:
    """The API keys in the environment: codex's own, and each provider's `env_key`."""
    names = {"OPENAI_API_KEY", "CODEX_API_KEY"}
    names |= {p.env_key for p in settings.providers.values() if p.env_key}
    return [os.environ[name] for name in names if os.environ.get(name)]


@asynccontextmanager
async def attached(attach: Attach, max_line_bytes: int) -> AsyncIterator[AppServer]:
    """A running app-server, reached with `attach` and initialized."""
    transport = await attach()
    opened = open_app_server(transport, experimental_api=True, max_line_bytes=max_line_bytes)
    async with opened as server:
        yield server


class Engine:
    """Conversations with Codex over one app-server. Build with `Engine.open(settings)`."""

    def __init__(
        self,
        settings: Settings,
        server: AppServer,
        tasks: TaskGroup,
        cwd: Path,
        launch: Launch | None = None,
        store: Store | None = None,
    ) -> None:
        self._settings = settings
        self._server = server
        self._tasks = tasks
        self._cwd = cwd
        self._journal = Journal(
            store, settings.limits.trace_events_per_turn, Redactor(known_secrets(settings))
        )
        self._outputs = CommandOutputs(settings.limits.command_output_bytes)
        self._emitter = Emitter(settings.limits.trace_events_per_turn, self._record)
        self._conversations = Conversations()
        self._notices = Notices(self._emitter, self._conversations)
        self._interactions = Interactions()
        self.offline = settings.codex.provider == OFFLINE_PROVIDER
        """True when codex runs on the offline scripted model."""
        self._router = Router(
            self._emitter,
            self._conversations,
            self._interactions,
            lambda conversation: self._turns.start_next(conversation),
            self._journal,
            quiet=OFFLINE_NOISE if self.offline else (),
        )
        self._closing = False
        self._lost = anyio.Event()
        """Set when the app-server goes away unexpectedly."""
        self._restarts = 0
        """How often in a row codex is started again when it goes away (none: it is not)."""
        self._back = anyio.Event()
        """Unset while codex is being started (or reached) again after it went away; set when
        it is back, or will not be."""
        self.status: Literal["online", "stopping", "failed"] = "online"
        """failed: codex went away (it is being restarted, or could not be)."""
        self._prefetched = Prefetched()
        """The history of conversations brought back at start, asked of codex early."""
        self._restorer = Restorer(
            settings,
            self._conversations,
            self._journal,
            self._router,
            self._emitter,
            lambda: self._server,
            self._notices.say,
        )
        self._side_chats = SideChats(
            self._emitter, server, launch, settings.limits.side_answer_chars
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
            lambda: self._server,
        )
        self._turns = Turns(core, lambda: self._closing)
        self._side_questions = SideQuestions(core, self._side_chats)
        self._threads = Threads(core, self._restorer, cwd)
        self._choices = Choices(core)
        self._command_line = CommandLine(
            self,
            self._conversations,
            self._router,
            self._notices,
            self._side_chats,
            self._choices,
            self._threads,
            self._side_questions,
            settings,
        )

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
        dies is restarted (with backoff). On exit, pending interactions are declined,
        running turns are stopped and the app-server is closed.

        Raises:
            CodexNotFound, CodexTooOld, ConnectionClosed: codex could not be started.
            SettingsError: the working directory is not there.
        """
        cwd = cwd or settings.codex.cwd or Path.cwd()
        launch: Launch | None = None
        reopen: Reopen | None = None
        connection: AbstractAsyncContextManager[AppServer] | None = None
        line_bytes = settings.limits.line_bytes
        if attach is not None:
            reopen = partial(attached, attach, line_bytes)
        elif transport is None:
            launch = launch_for(settings, find_codex(settings.codex.binary).path, cwd)
            reopen = spawn = partial(
                spawn_app_server, launch, experimental_api=True, max_line_bytes=line_bytes
            )
            if early is not None and early.launch == launch:
                connection, early = spawn(spawned=early), None
        if early is not None:  # not taken up: started otherwise than these settings ask
            await anyio.to_thread.run_sync(early.close)
        if connection is None and reopen is not None:
            connection = reopen()
        elif connection is None:
            assert transport is not None
            connection = open_app_server(
                transport, experimental_api=True, max_line_bytes=line_bytes
            )
        async with task_group() as tasks, connection as server:
            engine = cls(settings, server, tasks, cwd, launch, store)
            engine._attach(server)
            if store is not None:
                store.on_problem = engine._restorer.store_problem
                tasks.start_soon(store.run)
                # Nothing runs in a codex just started, so the history of the conversations it
                # resumes can be asked for at once, beside the resuming.
                prefetch = engine._prefetched if launch is not None else None
                await engine._restorer.restore(tasks, prefetch)
            if reopen is not None:
                what = "restarting codex" if attach is None else "reconnecting to codex"
                engine._restarts = settings.limits.restarts
                tasks.start_soon(engine._keep_alive, reopen, what)
            try:
                yield engine
            finally:
                with anyio.CancelScope(shield=True):
                    await engine._shut_down()
                    engine._outputs.close()
                    if store is not None:
                        await store.flush()
                # Before the connection closes, also when leaving by cancellation: nothing
                # still running may take codex's going away for a failure.
                tasks.cancel_scope.cancel()

    async def restored(self) -> None:
        """Wait until the conversations brought back from the store are resumed in codex and
        each message that was in flight is settled (at once without a store)."""
        if self._journal.store is not None:
            await self._restorer.resumed.wait()

    @property
    def app_server_pid(self) -> int | None:
        """The app-server's process id, when codex-deck started it."""
        pid = getattr(self._server.transport, "pid", None)
        return pid if isinstance(pid, int) else None

    def events(self) -> Subscription[EngineEvent]:
        """Every event from now on, in order (iterate with `async for`)."""
        return self._emitter.subscribe()

    def conversations(self) -> list[ConversationInfo]:
        return [self._info(c) for c in self._conversations.all()]

    def pending_interactions(self, conversation_id: str | None = None) -> list[InteractionInfo]:
        return [p.info for p in self._interactions.pending(conversation_id)]

    async def new_conversation(
        self, title: str | None = None, cwd: Path | None = None
    ) -> ConversationInfo:
        """Create a conversation and start its Codex thread.

        If codex refuses the thread, the conversation is `failed` (a notice says why) and
        the next submission tries again.
        """
        conversation = Conversation(
            id=uuid.uuid4().hex[:12],
            title=title or "New conversation",
            cwd=str(cwd or self._cwd),
        )
        self._conversations.add(conversation)
        self._router.updated(conversation)
        await self._turns.start_thread(conversation)
        return self._info(conversation)

    def rename(self, conversation_id: str, title: str) -> ConversationInfo:
        conversation = self._conversations.get(conversation_id)
        conversation.title = title.strip() or conversation.title
        self._router.updated(conversation)
        return self._info(conversation)

    async def archive(self, conversation_id: str) -> ConversationInfo:
        """Hide a conversation from the list (its thread is archived in codex too)."""
        conversation = self._conversations.get(conversation_id)
        if conversation.state in BUSY_STATES:
            await self.stop(conversation_id)
        conversation.archived = True
        await self._side_chats.close_all(conversation.id, "the conversation was archived")
        if conversation.thread_id is not None:
            with contextlib.suppress(RpcError):
                params = wire.ThreadArchiveParams(thread_id=conversation.thread_id)
                await self._server.thread_archive(params)
        self._router.updated(conversation)
        return self._info(conversation)

    async def submit(
        self, conversation_id: str, text: str, mode: SubmitMode = "auto"
    ) -> SubmitOutcome:
        """Send a message: start a turn when idle, steer the running turn (`auto`), or queue it.

        Refused (nothing sent, a notice says why): input over codex's limit (TEXT_INPUT_CHARS
        characters), a full queue, or too many running conversations. Empty input is ignored.
        """
        conversation = self._conversations.get(conversation_id)
        if not text.strip() and not conversation.images:
            return SubmitOutcome(False, None, "")
        if self.status == "failed" and not self._back.is_set():
            self._notices.say(
                conversation, "info", "codex is restarting: the message goes once it is back."
            )
            await self._back.wait()
        if self.status != "online":
            reason = self._server.rpc.closed_reason or self.status
            return self._notices.refused(
                conversation, f"codex is not running ({reason}). Nothing was sent."
            )
        if len(text) > wire.TEXT_INPUT_CHARS:
            return self._notices.refused(conversation, too_long("message", len(text)))
        await self.restored()  # what was in flight before a restart is settled first
        return await self._turns.send(conversation, text, mode)

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
        try:
            pending = self._interactions.find(reference)
        except KeyError as error:
            return self._notices.failed(conversation_id, str(error.args[0]))
        info = pending.info
        if conversation_id is not None and info.conversation_id != conversation_id:
            return self._notices.failed(
                conversation_id, f"{info.id} belongs to another conversation"
            )
        if pending.outcome is not None:
            already = "expired" if pending.outcome == "expired" else "already answered"
            return self._notices.failed(conversation_id, f"{info.id} is {already}")
        try:
            detail = self._router.requests.answer_with(pending, answer)
        except AnswerDoesNotFit as error:
            return self._notices.failed(conversation_id, f"{info.id}: {error}")
        return CommandResult(True, f"{info.id}: {detail}")

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

    async def models(self, include_hidden: bool = False) -> list[wire.ModelInfo]:
        """The models codex offers (`model/list`, every page)."""
        return await self._choices.models(include_hidden)

    async def execute(self, conversation_id: str, line: str) -> CommandResult:
        """Run one line of input: a slash command, or text for the agent (once what was in
        flight before a restart is settled: /resend and /continue depend on it)."""
        await self.restored()
        return await self._command_line.execute(conversation_id, line)

    async def account(self) -> wire.AccountReadResult:
        """The Codex account codex is signed in with (if any), and whether it needs one."""
        return await self._server.account_read(wire.AccountReadParams())

    async def sign_in_with_api_key(self, api_key: str) -> CommandResult:
        """Give codex an API key to keep in its own auth store; codex-deck keeps nothing of it
        (not in events, the trace, the store or logs)."""
        if not api_key.strip():
            return CommandResult(False, "No API key was given; nothing was sent.")
        params = wire.ApiKeyLoginParams(api_key=api_key.strip())
        try:
            await self._server.call("account/login/start", params, wire.LoginStarted)
        except (RpcError, ConnectionClosed) as error:
            return CommandResult(False, f"codex refused the key: {error}")
        return CommandResult(True, "Signed in with an API key (codex keeps it).")

    async def sign_in_with_device_code(self) -> wire.LoginStarted:
        """Start a ChatGPT sign-in with a device code: show `verification_url` and
        `user_code`; `SignInFinished` says how it ended.

        Raises:
            RpcError, ConnectionClosed: codex could not start it (its words).
        """
        params = wire.DeviceCodeLoginParams()
        return await self._server.call("account/login/start", params, wire.LoginStarted)

    async def cancel_sign_in(self, login_id: str) -> None:
        with contextlib.suppress(RpcError, ConnectionClosed):
            params = wire.CancelLoginParams(login_id=login_id)
            await self._server.call("account/login/cancel", params, wire.EmptyResult)

    async def sign_out(self) -> CommandResult:
        try:
            await self._server.call("account/logout", wire.LogoutParams(), wire.EmptyResult)
        except (RpcError, ConnectionClosed) as error:
            return CommandResult(False, f"codex could not sign out: {error}")
        return CommandResult(True, "Signed out of codex.")

    async def read_thread(self, thread_id: str) -> wire.Thread:
        """A Codex thread as codex stores it, with its turns (any generation's thread)."""
        params = wire.ThreadReadParams(thread_id=thread_id, include_turns=True)
        return (await self._server.thread_read(params)).thread

    async def history(self, conversation_id: str, turns: int = HISTORY_TURNS) -> list[EngineEvent]:
        """The conversation's last `turns` turns as codex keeps them, as completed items and
        turns: for showing a conversation brought back from the store or opened from codex.
        Paged from codex, so a long thread opens fast."""
        conversation = self._conversations.get(conversation_id)
        if conversation.thread_id is None:
            return []
        thread_id = conversation.thread_id
        fetched = await self._prefetched.take(conversation.id, thread_id, turns)
        listed, more = fetched or await last_turns(self._server, thread_id, turns)
        trace = self._emitter.trace(conversation.id)
        return history_events(conversation.id, listed, more, self._emitter.stamp, trace.turn)

    def session_info(self, conversation_id: str) -> SessionInfo:
        """Ids, generation, thread, model, provider, cwd, sandbox, approvals, tokens."""
        return session_info(self._conversations.get(conversation_id), self._settings)

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

        def in_memory() -> list[SearchHit]:
            return [hit for title, got in kept for hit in search_events(got, query, title, limit)]

        hits = await anyio.to_thread.run_sync(in_memory)
        store = self._journal.store
        if store is not None:
            rows = await anyio.to_thread.run_sync(
                store.archived_items_like, like_pattern(query), limit
            )
            for _, title, thread_id, text in rows:
                with contextlib.suppress(RecordingError, ValueError):
                    event = event_from_json(json.loads(text))
                    for hit in search_events([event], query, title, limit):
                        hits.append(replace(hit, archived=True, thread_id=thread_id))
        hits.sort(key=lambda hit: hit.at, reverse=True)
        return hits[:limit]

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
        text = jsonl(events, Redactor(known_secrets(self._settings)))
        await anyio.to_thread.run_sync(write_private, path, text)
        return len(events)

    async def export_markdown(self, conversation_id: str, path: Path) -> int:
        """Write the conversation as Markdown with known secrets redacted; returns its size."""
        conversation = self._conversations.get(conversation_id)
        events = self._emitter.trace(conversation.id).all_events()
        text = markdown(conversation.title, events, Redactor(known_secrets(self._settings)))
        await anyio.to_thread.run_sync(write_private, path, text)
        return len(text)

    def redact(self, text: str) -> str:
        """`text` with known secrets (and anything shaped like an API key) replaced."""
        return Redactor(known_secrets(self._settings))(text)

    def _info(self, conversation: Conversation) -> ConversationInfo:
        return conversation.info(len(self._interactions.pending(conversation.id)))

    def _attach(self, server: AppServer) -> None:
        """Take `server` as codex: follow what it sends and answer what it asks."""
        self._server = server
        self._side_chats.parent = server
        received = server.rpc.subscribe()
        server.handle_requests(self._router.requests.answer)
        self._tasks.start_soon(self._route, server, received)

    async def _route(self, server: AppServer, received: Subscription[Incoming]) -> None:
        """Apply everything the app-server sends, batch by batch, until it goes away."""
        while True:
            try:
                batch = await received.batches()
            except StopAsyncIteration:
                break
            with self._emitter.batch():
                for incoming in batch:
                    fast = isinstance(incoming, Notification) and self._router.fast_delta(
                        incoming.method, incoming.params
                    )
                    if not fast:
                        self._router.handle(typed(incoming))
        if not self._closing and server is self._server:
            reason = server.rpc.closed_reason or "the app-server went away"
            self._connection_lost(reason)
            self._lost.set()

    def _connection_lost(self, reason: str) -> None:
        self.status = "failed"
        self._back = anyio.Event()
        if not self._restarts:
            self._back.set()  # nothing will start it again
        with self._emitter.batch():
            self._emitter.emit(
                EngineStatus(**self._emitter.stamp(None), status="failed", detail=reason)
            )
            for pending in self._interactions.pending():
                self._router.requests.expire(pending, "the app-server went away", "codex-deck")
            self._turns.codex_lost()
            self._notices.say(None, "error", f"Lost the app-server: {reason}")

    async def _keep_alive(self, reopen: Reopen, what: str) -> None:
        """Start or reach codex again whenever it goes away: after 0.5 s, doubling to 10 s;
        give up after `limits.restarts` tries in a row fail, with what codex said."""
        attempts = self._settings.limits.restarts
        while True:
            await self._lost.wait()
            self._lost = anyio.Event()
            delay, failure = RESTART_FIRST_DELAY, ""
            for attempt in range(1, attempts + 1):
                self._status("starting", f"{what} in {delay:.1f} s (attempt {attempt})")
                await anyio.sleep(delay)
                try:
                    async with reopen() as server:
                        self._attach(server)
                        await self._restorer.resume_all()
                        self.status = "online"
                        self._back.set()
                        self._status("online", f"codex is back (attempt {attempt})")
                        await self._lost.wait()
                        break
                except CodexDeckError as error:
                    failure = str(error)
                delay = min(delay * 2, RESTART_MAX_DELAY)
            else:
                self._back.set()  # what waits for codex is refused now
                self._status(
                    "failed",
                    f"gave up {what} after {attempts} failed tries in a row; restart "
                    f"codex-deck. Last: {failure}",
                )
                return

    def _record(self, event: EngineEvent, turn_id: str | None) -> None:
        """Every emitted event: into the store's journal, and command output into its file."""
        self._journal.event(event, turn_id)
        self._outputs.event(event)

    def _status(self, status: Literal["starting", "online", "failed"], detail: str) -> None:
        self._emitter.emit(EngineStatus(**self._emitter.stamp(None), status=status, detail=detail))

    async def _shut_down(self) -> None:
        """Decline what waits for an answer, stop running turns (waiting a little for them to
        end, so the store knows they were interrupted)."""
        self._closing = True
        self._back.set()  # a message waiting for codex to come back is refused
        self.status = "stopping"
        self._restorer.stop_resuming()
        for pending in self._interactions.pending():
            self._router.requests.expire(pending, "codex-deck is closing", "codex-deck")
        await self._side_chats.close_all(None, "codex-deck is closing")
        with anyio.move_on_after(SHUTDOWN_SECONDS):
            await self._server.rpc.replies_sent()
            async with anyio.create_task_group() as stopping:
                for conversation in self._conversations.all():
                    if conversation.turn_id is not None:
                        stopping.start_soon(self._turns.stop_turn, conversation)
        self._emitter.close()
