"""Bringing conversations back: from the store at start-up, and into a restarted codex.

Each conversation's thread is resumed; every message that was in flight is settled as its
thread shows it (`recovery.settle`) and said so on the conversation; queued messages are kept
and wait for /continue. Nothing is sent again by itself.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

import anyio
from anyio.abc import TaskGroup

from engine import protocol as wire
from engine.conversations.conversation import Conversation, Conversations
from engine.conversations.emitter import Emitter
from engine.conversations.history import RUNNING, last_turns
from engine.conversations.history_pages import Prefetched, pages_of
from engine.conversations.journal import Journal
from engine.conversations.link import Link
from engine.conversations.recovery import (
    restored_conversation,
    restored_submission,
    secret_not_kept,
    settle,
)
from engine.conversations.router import Router
from engine.errors import ConnectionClosed, RpcError
from engine.events import EngineEvent, ItemDelta, NoticeLevel, TurnCompleted, TurnStarted
from engine.records.recording import RecordingError, event_from_json
from engine.records.store import Store, StoredConversation, StoredSubmission
from engine.settings import Settings
from engine.transport.launch import thread_defaults

NO_ROLLOUT = "no rollout found"
"""What codex says when it has no record of a thread (one without a turn is never written)."""
SETTLE_TURNS = 20
"""How many of a thread's last turns are searched for a message that was in flight."""
FOLLOWED = frozenset({"completed", "sent"})
"""How an in-flight message may be settled that needs no word of warning: it completed, or
its turn runs on (in a shared codex) and is followed."""
CAUGHT_UP_TURNS = 20
"""How many of a thread's last turns are read when another app moved a conversation here to
it (/reset there): those that ended before this app followed it are told as they ran."""
RESUMED_AT_ONCE = 8
"""Threads codex is asked to resume at the same time."""
Say = Callable[[Conversation | None, NoticeLevel, str], None]


class Restorer:
    def __init__(
        self,
        settings: Settings,
        conversations: Conversations,
        journal: Journal,
        router: Router,
        emitter: Emitter,
        link: Link,
        notice: Say,
    ) -> None:
        self._settings = settings
        self._conversations = conversations
        self._journal = journal
        self._router = router
        self._emitter = emitter
        self._link = link
        """The codex in use now (it changes when codex is restarted)."""
        self._notice = notice
        self.resumed = anyio.Event()
        """Set once the conversations brought back at start are resumed and settled (or at
        once when codex could not be reached at start: they are resumed as it is reached,
        before what waits for codex goes)."""
        self._resuming = anyio.CancelScope()
        self._loaded = False
        """The store's conversations are all here (`restore` has read them)."""

    async def restored(self) -> None:
        """Wait until the conversations brought back from the store are resumed in codex and
        each message that was in flight is settled (at once without a store)."""
        if self._journal.store is not None:
            await self.resumed.wait()

    def store_problem(self, problem: str | None) -> None:
        if problem is None:
            self._notice(None, "info", "The store takes writes again; codex-deck saves again.")
            return
        store = self._journal.store
        where = store.path if store is not None else "the store"
        self._notice(
            None,
            "error",
            f"Could not write to {where} ({problem}). codex-deck keeps working, but what "
            "happens from now on is not saved until the disk takes writes again, and no "
            "message is sent until it can be recorded first.",
        )

    async def restore(self, tasks: TaskGroup, prefetch: Prefetched | None = None) -> None:
        """Bring back the store's conversations, and keep their queues (held until the user
        says so). Their threads are resumed and every message that was in flight is settled
        in `tasks`, after this returns (`resumed` is set then); until then, requests that
        act on a thread wait. Codex takes long to resume a long thread, and the
        conversations can be shown meanwhile.

        With `prefetch`, each thread's latest items are asked for at once, beside the resuming.
        """
        store = self._journal.store
        assert store is not None
        loaded = await anyio.to_thread.run_sync(store.load)
        if store.moved_aside is not None:
            self._notice(
                None,
                "error",
                f"The store could not be read, so it was moved to {store.moved_aside} (kept, "
                "not deleted) and a new one was started.",
            )
        unreached = self._link.reached is None
        if prefetch is not None and not unreached:
            for stored in loaded.conversations:
                if not stored.archived and stored.thread_id is not None:
                    pages = pages_of(self._link, self._emitter, stored.id, stored.thread_id)
                    prefetch.start(tasks, stored.id, pages)
        waiting: dict[str, list[StoredSubmission]] = {}
        for stored_submission in loaded.submissions:
            waiting.setdefault(stored_submission.conversation_id, []).append(stored_submission)
        for stored in loaded.conversations:
            if stored.archived:
                continue
            conversation = await self._add(stored)
            unanswered = loaded.unanswered.get(conversation.id, 0)
            if unanswered:
                self._journal.close_unanswered(conversation.id)
                self._notice(
                    conversation,
                    "warning",
                    (
                        "1 request waited for your answer when codex-deck stopped; it was "
                        "closed unanswered, so nothing it asked for was approved."
                        if unanswered == 1
                        else f"{unanswered} requests waited for your answer when codex-deck "
                        "stopped; they were closed unanswered, so nothing they asked for was "
                        "approved."
                    ),
                )
            for kept in waiting.get(conversation.id, []):
                submission = restored_submission(kept)
                if kept.state == "queued" and kept.secret:
                    self._journal.forget([submission])
                    self._notice(
                        conversation, "warning", secret_not_kept(kept.text, "queued again")
                    )
                elif kept.state == "queued":
                    conversation.queue.append(submission)
                    conversation.queue_held = True
                else:
                    # Left unknown in an earlier run, it was said then: not again at each start.
                    submission.settled = kept.state == "unknown"
                    conversation.unsettled.append(submission)
            self._router.updated(conversation)
        self._loaded = True
        if not unreached:
            self._link.server.hold(self.resumed)
            tasks.start_soon(self._resume_at_start, prefetch)

    async def _resume_at_start(self, prefetch: Prefetched | None) -> None:
        try:
            with self._resuming:
                if prefetch is not None:
                    await prefetch.fetched()  # what is shown first, then what can wait
                await self.resume_all()
        finally:
            self.resumed.set()

    def stop_resuming(self) -> None:
        """The engine is closing: leave the threads not resumed yet as they are, and what
        was in flight unsettled (the next start settles it)."""
        self._resuming.cancel()

    async def _add(self, stored: StoredConversation) -> Conversation:
        """A stored conversation back among the engine's, with its trace and thread."""
        store = self._journal.store
        assert store is not None
        traced = await anyio.to_thread.run_sync(stored_trace, store, stored.id)
        conversation = restored_conversation(stored)
        self._conversations.add(conversation)
        for event, turn_id in traced:
            self._emitter.restore(event, turn_id)
        if stored.thread_id is not None:
            self._conversations.bind(conversation, stored.thread_id)
        return conversation

    async def adopt(self, thread_id: str) -> Conversation | None:
        """The conversation another app on the same store runs on this thread, brought here
        and its thread resumed (this app then hears its turns too); None when the store has
        no such conversation (a sub-agent's thread, a client that is not codex-deck), it is
        here already (or the store's are still being read), or codex would not resume it.
        One here already that the other app moved to this thread (/reset) follows it."""
        store = self._journal.store
        if store is None or not self._loaded or self._conversations.owner(thread_id) is not None:
            return None
        try:
            stored = await anyio.to_thread.run_sync(store.conversation_of_thread, thread_id)
            if stored is None or stored.archived or self._conversations.owner(thread_id):
                return None  # (or brought here meanwhile)
            if stored.id in self._conversations:
                await self._moved(self._conversations.get(stored.id), stored, thread_id)
                return None
            conversation = await self._add(stored)
        except sqlite3.Error:
            return None  # looked up again at the thread's next status
        await self._follow(conversation, thread_id)
        return conversation

    async def _moved(
        self, conversation: Conversation, stored: StoredConversation, thread_id: str
    ) -> None:
        """The other app started the conversation on a new thread (/reset there): follow it."""
        if stored.generation <= conversation.generation:
            return
        if conversation.turn_id is not None:  # the old thread's: no longer followed
            conversation.end_turn(conversation.turn_id)
            conversation.idle()
        conversation.generation = stored.generation
        conversation.thread = None
        conversation.token_usage = None
        self._conversations.bind(conversation, thread_id)
        self._notice(
            conversation,
            "info",
            f"Reset in another app: a new thread (generation {conversation.generation}), "
            "followed here from now on.",
        )
        if await self.resume(conversation):
            # Its turns so far were told only to the other app: a quick one may have ended
            # before the thread was resumed here, one that runs began unseen.
            turns, _ = await last_turns(self._link.server, thread_id, CAUGHT_UP_TURNS)
            for turn in turns:
                self._router.unseen_turn(conversation, turn)
        self._router.updated(conversation)

    async def _follow(self, conversation: Conversation, thread_id: str) -> None:
        """Resume another app's thread here, its running turn (if one runs) known (a
        conversation brought here reads its earlier turns as it is shown)."""
        if await self.resume(conversation):
            running = await self._running_turn(thread_id)
            if running is not None:  # its start was told only to the app that resumed it
                self._router.turn_began(conversation, running)
        self._router.updated(conversation)

    async def _running_turn(self, thread_id: str) -> str | None:
        """The thread's latest turn, if it is running."""
        params = wire.ThreadTurnsListParams(
            thread_id=thread_id, limit=1, sort_direction="desc", items_view="notLoaded"
        )
        try:
            page = await self._link.server.call(
                "thread/turns/list", params, wire.ThreadTurnsListResult
            )
        except (RpcError, ConnectionClosed):
            return None
        latest = page.data[0] if page.data else None
        return latest.id if latest is not None and latest.status == RUNNING else None

    async def unarchive(self, stored: StoredConversation) -> Conversation:
        """Bring an archived conversation of the store back: its codex thread unarchived and
        resumed."""
        conversation = await self._add(stored)
        conversation.archived = False
        if conversation.thread_id is not None:
            with contextlib.suppress(RpcError, ConnectionClosed):
                params = wire.ThreadUnarchiveParams(thread_id=conversation.thread_id)
                await self._link.server.thread_unarchive(params)
        self._journal.conversation(conversation)
        await self.resume(conversation)
        self._router.updated(conversation)
        return conversation

    async def resume_all(self) -> None:
        """Resume every conversation's thread in this app-server, then settle what was in
        flight and say what waits in the queue. The threads are resumed a few at a time."""
        live = [c for c in self._conversations.all() if not c.archived]
        limiter = anyio.CapacityLimiter(RESUMED_AT_ONCE)

        async def resume(conversation: Conversation) -> None:
            async with limiter:
                await self.resume(conversation)

        async with anyio.create_task_group() as resuming:
            for conversation in live:
                resuming.start_soon(resume, conversation)
        for conversation in live:
            await self._settle(conversation)
            if conversation.queue and conversation.queue_held:
                self._notice(
                    conversation,
                    "info",
                    f"{len(conversation.queue)} queued message(s) were kept; they wait: "
                    "/continue runs them.",
                )
        if self._journal.store is not None:
            await self._journal.store.flush()

    async def resume(self, conversation: Conversation) -> bool:
        """Load the conversation's thread into this codex (without its turns: they are paged
        when needed); False if codex went away, or, with a notice, if codex refused (then the
        next message starts a new thread)."""
        if conversation.thread_id is None:
            return False
        defaults = thread_defaults(self._settings, Path(conversation.cwd))
        params = wire.ThreadResumeParams(
            **defaults.as_dict(), thread_id=conversation.thread_id, exclude_turns=True
        )
        try:
            opened = await self._link.server.thread_resume(params)
        except ConnectionClosed:
            return False  # codex went away: the thread is resumed once codex is back
        except RpcError as error:
            lost = conversation.thread_id
            conversation.generation += 1
            conversation.thread_id = None
            conversation.thread = None
            if NO_ROLLOUT in error.message and not self._had_turns(conversation):
                self._router.updated(conversation)  # nothing was said there: nothing is lost
                return False
            self._notice(
                conversation,
                "error",
                f"codex could not resume thread {lost} ({error}); the next message starts a "
                "new thread.",
            )
            self._router.updated(conversation)
            return False
        conversation.thread = opened
        return True

    def _had_turns(self, conversation: Conversation) -> bool:
        """Whether the conversation's trace holds a turn (codex writes a thread down at its
        first turn: a thread that had none is not kept, and nothing is lost with it)."""
        events = self._emitter.trace(conversation.id).all_events()
        return any(isinstance(event, TurnStarted | TurnCompleted) for event in events)

    async def _settle(self, conversation: Conversation) -> None:
        """Mark each in-flight message as its thread shows it; unknown ones stay for /resend."""
        unknown = []
        for submission in conversation.unsettled:
            if submission.settled:
                unknown.append(submission)
                continue
            submission.settled = True
            witness = await self._recent_turns(conversation, submission.generation)
            settled = settle(submission.id, submission.text, witness, self._link.shared)
            submission.state = settled.state
            submission.turn_id = settled.turn_id or submission.turn_id
            self._journal.submission(submission)
            level: NoticeLevel = "info" if settled.state in FOLLOWED else "error"
            self._notice(conversation, level, settled.explanation)
            if settled.state == "unknown":
                unknown.append(submission)
            elif settled.state == "sent" and settled.turn_id is not None:
                conversation.submission = submission  # its turn runs: followed as it goes
                self._router.turn_began(conversation, settled.turn_id)
        conversation.unsettled = unknown
        conversation.settled(unknown=bool(unknown))
        self._router.updated(conversation)

    async def _recent_turns(
        self, conversation: Conversation, generation: int
    ) -> wire.Thread | None:
        """The last turns of the conversation's thread of `generation`, where a message sent
        just before codex went away must be."""
        thread_id = conversation.thread_id if generation == conversation.generation else None
        store = self._journal.store
        if thread_id is None and store is not None:
            threads = await anyio.to_thread.run_sync(store.threads, conversation.id)
            thread_id = threads.get(generation)
        if thread_id is None:
            return None
        turns, _ = await last_turns(self._link.server, thread_id, SETTLE_TURNS)
        return wire.Thread(id=thread_id, turns=turns)


def stored_trace(store: Store, conversation_id: str) -> list[tuple[EngineEvent, str | None]]:
    """The conversation's stored trace, read and parsed (in a worker thread: it can be
    thousands of events); events that cannot be read are left out."""
    events: list[tuple[EngineEvent, str | None]] = []
    last_seq: dict[str | None, int] = {}
    for turn_id, text in store.trace_rows(conversation_id):
        with contextlib.suppress(RecordingError, ValueError):
            event = event_from_json(json.loads(text))
            events.append((event, turn_id))
            last_seq[turn_id] = event.seq
    for turn_id, item_id, text in store.partials(conversation_id):
        # An answer that never completed: its text so far, as the one delta of its item.
        partial = ItemDelta(
            seq=last_seq.get(turn_id, 0),
            at=time.time(),
            conversation_id=conversation_id,
            turn_id=turn_id,
            item_id=item_id,
            kind="agent_message",
            text=text,
        )
        events.append((partial, turn_id))
    return events
