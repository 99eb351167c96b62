"""The turn state machine: a message starts a turn, steers the running one or waits in the
queue; a turn is stopped; the next queued message starts when a turn ends. Each conversation's
state moves here (and in the router, as codex tells how its turns go)."""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Literal

import anyio

from engine import protocol as wire
from engine.conversations.conversation import (
    Conversation,
    Submission,
    SubmissionMode,
    with_context,
)
from engine.conversations.core import Core
from engine.conversations.notices import too_long
from engine.conversations.restore import Restorer
from engine.conversations.stopping import interrupt, stop_turn
from engine.errors import ConnectionClosed, RpcError
from engine.events import BUSY_STATES, StopOutcome, StopRequested, SubmissionAccepted
from engine.images import ImageRefused, check_image, user_input
from engine.results import CommandResult, SubmitOutcome
from engine.transport.launch import thread_defaults

SubmitMode = Literal["auto", "queue"]


class Turns:
    """Starts, steers, queues and stops the turns of every conversation on the codex in use
    (`server()`: it changes when codex is started again)."""

    def __init__(self, core: Core, restorer: Restorer) -> None:
        self._core = core
        self._restorer = restorer

    @property
    def _closing(self) -> bool:
        return self._core.link.closing

    async def submit(
        self, conversation_id: str, text: str, mode: SubmitMode = "auto"
    ) -> SubmitOutcome:
        """Send a message (`Engine.submit`), once codex is back if it is being started again
        and what was in flight before is settled; refused (a notice says why) when codex is
        not running or the text is over its limit."""
        conversation = self._core.conversations.get(conversation_id)
        if not text.strip() and not conversation.images:
            return SubmitOutcome(False, None, "")
        link = self._core.link
        if link.coming_back:
            self._core.notices.say(
                conversation, "info", "codex is restarting: the message goes once it is back."
            )
            await link.back.wait()
        reason = link.not_running()
        if reason is not None:
            return self._core.notices.refused(
                conversation, f"codex is not running ({reason}). Nothing was sent."
            )
        sent = with_context(text, conversation.context)
        if len(sent) > wire.TEXT_INPUT_CHARS:
            what = "message with the side answers brought in" if conversation.context else "message"
            return self._core.notices.refused(conversation, too_long(what, len(sent)))
        await self._restorer.restored()
        return await self.send(conversation, text, mode)

    async def send(
        self, conversation: Conversation, text: str, mode: SubmitMode = "auto"
    ) -> SubmitOutcome:
        """Start a turn when idle, steer the running turn (`auto`), or queue the message;
        refused (a notice says why) when an image staged for it is not fit to send."""
        for image in conversation.images:
            try:
                limit = self._core.settings.limits.image_bytes
                await anyio.to_thread.run_sync(check_image, Path(image.path), limit)
            except ImageRefused as error:
                return self._core.notices.refused(
                    conversation, f"{error} Nothing was sent; `/image clear` drops the images."
                )
        idle = conversation.state not in BUSY_STATES
        if idle and not conversation.queue:
            return await self._start_now(conversation, text)
        if idle:
            return await self._queue_then_start(conversation, text)
        if mode == "auto" and self._steerable(conversation):
            return await self._steer(conversation, text)
        return self._enqueue(conversation, text)

    def _submission(
        self, conversation: Conversation, text: str, mode: SubmissionMode
    ) -> Submission:
        """A new message with the images staged for it and the side answers brought in."""
        images = tuple(image.path for image in conversation.images)
        sent = with_context(text, conversation.context)
        return Submission(
            conversation.id,
            conversation.generation,
            sent,
            mode,
            images=images,
            context=len(conversation.context),
            typed=text if conversation.context else None,
        )

    def _accepted(
        self,
        conversation: Conversation,
        submission: Submission,
        how: Literal["started", "steered", "queued"],
        message: str,
    ) -> SubmitOutcome:
        if submission.images or submission.context:
            conversation.images.clear()  # they went with it
            del conversation.context[: submission.context]
            self._core.router.updated(conversation)
        event = SubmissionAccepted(
            **self._core.emitter.stamp(conversation.id),
            submission_id=submission.id,
            text=submission.typed if submission.typed is not None else submission.text,
            how=how,
        )
        self._core.emitter.emit(event, conversation.turn_id)
        return SubmitOutcome(True, how, message, submission.id)

    async def start_thread(self, conversation: Conversation) -> bool:
        defaults = thread_defaults(self._core.settings, Path(conversation.cwd))
        if conversation.provider is not None:
            defaults = defaults.replace(model_provider=conversation.provider)
        try:
            opened = await self._core.server.thread_start(
                wire.ThreadStartParams(**defaults.as_dict())
            )
        except (RpcError, ConnectionClosed) as error:
            conversation.thread_failed()
            self._core.notices.say(
                conversation, "error", f"codex could not start a thread: {error}"
            )
            self._core.router.updated(conversation)
            return False
        conversation.thread = opened
        self._core.conversations.bind(conversation, opened.thread.id)
        conversation.thread_started()
        self._core.router.updated(conversation)
        return True

    def _room_to_run(self, conversation: Conversation) -> str | None:
        limit = self._core.settings.limits.running_conversations
        if self._core.conversations.busy() >= limit:
            return (
                f"{limit} conversations are already running (the limit is "
                f"{limit}). Nothing was sent."
            )
        return None

    async def _start_now(self, conversation: Conversation, text: str) -> SubmitOutcome:
        full = self._room_to_run(conversation)
        if full is not None:
            return self._core.notices.refused(conversation, full)
        submission = self._submission(conversation, text, "start")
        unsent = await self._run(conversation, submission, announce=True)
        if unsent is not None:
            return SubmitOutcome(False, None, unsent, submission.id)
        return SubmitOutcome(True, "started", "Sent.", submission.id)

    async def _queue_then_start(self, conversation: Conversation, text: str) -> SubmitOutcome:
        """Idle with held messages: the new one goes behind them and the oldest starts."""
        full = self._room_to_run(conversation)
        if full is not None:
            return self._core.notices.refused(conversation, full)
        outcome = self._enqueue(conversation, text)
        if outcome.accepted:
            conversation.queue_held = False
            self.start_next(conversation)
        return outcome

    def _enqueue(self, conversation: Conversation, text: str) -> SubmitOutcome:
        limit = self._core.settings.limits.queued_messages
        if len(conversation.queue) >= limit:
            return self._core.notices.refused(
                conversation,
                f"{limit} messages are already waiting in this conversation (the limit is "
                f"{limit}). Nothing was sent.",
            )
        submission = self._submission(conversation, text, "queue")
        conversation.queue.append(submission)
        self._core.journal.submission(submission)
        outcome = self._accepted(
            conversation, submission, "queued", f"Queued ({len(conversation.queue)} waiting)."
        )
        self._core.router.updated(conversation)
        return outcome

    def _steerable(self, conversation: Conversation) -> bool:
        return (
            conversation.state in ("running", "waiting")
            and conversation.turn_id is not None
            and not conversation.stop_requested
            and self._core.router.shell_runs.of_turn(conversation.turn_id) is None
        )  # a `!command` of the user's takes no message: what is typed meanwhile waits

    async def _steer(self, conversation: Conversation, text: str) -> SubmitOutcome:
        assert conversation.thread_id is not None
        assert conversation.turn_id is not None
        submission = self._submission(conversation, text, "steer")
        submission.state = "sent"
        submission.turn_id = conversation.turn_id
        params = wire.TurnSteerParams(
            thread_id=conversation.thread_id,
            expected_turn_id=conversation.turn_id,
            input=user_input(text, submission.images),
            client_user_message_id=submission.id,
        )
        why_not = await self._core.journal.sent(submission)
        if why_not is not None:
            self._core.journal.forget([submission])
            return self._core.notices.refused(conversation, unrecorded(why_not))
        try:
            await self._core.server.turn_steer(params)
        except RpcError as error:
            self._core.journal.forget([submission])
            outcome = self._enqueue(conversation, text)
            if outcome.accepted:
                self._core.notices.say(
                    conversation,
                    "info",
                    f"The running turn could not be steered ({error.message}); "
                    "your message was queued to run next instead.",
                )
                if not self._steerable(conversation):
                    # The turn ended while the steer was on its way, after its end looked
                    # for a queued message: this one starts now, not at the next turn's end.
                    self.start_next(conversation)
            return outcome
        conversation.steered.append(submission)
        return self._accepted(conversation, submission, "steered", "Sent to the running turn.")

    def start_next(self, conversation: Conversation) -> None:
        """After a turn: start the next queued message, unless the queue is held."""
        if conversation.queue_held or not conversation.queue or self._closing:
            return
        submission = conversation.queue.popleft()
        conversation.prepare(submission)
        self._core.tasks.start_soon(self._run, conversation, submission)

    async def _run(
        self, conversation: Conversation, submission: Submission, announce: bool = False
    ) -> str | None:
        """Send one submission as a new turn; why not, if it was not sent.

        `announce`: the submission is new (not from the queue) and is announced as started.
        """
        conversation.prepare(submission)
        self._core.router.updated(conversation)
        if conversation.thread_id is None and not await self.start_thread(conversation):
            submission.state = "failed"
            conversation.submission = None
            return "codex could not start a thread; see the notice."
        assert conversation.thread_id is not None
        if conversation.stop_requested:
            self._abandon(conversation, submission, "Stopped before it was sent.")
            return "stopped before it was sent."
        thread_id, generation = conversation.thread_id, conversation.generation
        submission.state = "sent"
        why_not = await self._core.journal.sent(submission)
        if why_not is not None:
            return self._unrecorded(conversation, submission, why_not, queued=not announce)
        if announce:
            self._accepted(conversation, submission, "started", "Sent.")
        params = wire.TurnStartParams(
            thread_id=thread_id,
            input=user_input(submission.text, submission.images),
            client_user_message_id=submission.id,
            approval_policy=conversation.approval_policy,
            model=conversation.model,
            effort=conversation.reasoning_effort,
            sandbox_policy=(
                wire.SANDBOX_POLICIES[conversation.sandbox] if conversation.sandbox else None
            ),
            collaboration_mode=(
                wire.plan_mode(conversation.thread.model)
                if conversation.plan_mode and conversation.thread is not None
                else None
            ),
        )
        try:
            started = await self._core.server.turn_start(params)
        except RpcError as error:
            submission.state = "failed"
            self._core.journal.submission(submission)
            self._abandon(conversation, submission, f"codex refused the message: {error.message}")
            self.start_next(conversation)
            return None
        except ConnectionClosed:
            submission.state = "unknown"
            self._core.journal.submission(submission)
            return None
        turn_id = started.turn.id
        if conversation.generation != generation:
            # Reset while the turn was being started: that turn belongs to the old thread.
            with contextlib.suppress(RpcError, ConnectionClosed):
                await self._core.server.turn_interrupt(
                    wire.TurnInterruptParams(thread_id=thread_id, turn_id=turn_id)
                )
            return None
        self._core.router.turn_began(conversation, turn_id)
        if conversation.stop_requested and conversation.turn_id == turn_id:
            await interrupt(self._core, conversation)
        return None

    def _unrecorded(
        self, conversation: Conversation, submission: Submission, why: str, queued: bool
    ) -> str:
        """The store could not record `submission` before it went out, so it is not sent: a
        crash would leave nothing to say it had. A typed message goes back to the box (the
        caller is told why); a queued one goes back to the head of its queue, held."""
        said = unrecorded(why)
        if queued:
            submission.state = "queued"
            self._core.journal.submission(submission)
            conversation.queue.appendleft(submission)
            conversation.queue_held = True
            said = said.replace("send it again", "/continue sends it")
        else:
            self._core.journal.forget([submission])
        conversation.idle()
        self._core.notices.say(conversation, "error", said)
        self._core.router.updated(conversation)
        return said

    def _abandon(self, conversation: Conversation, submission: Submission, why: str) -> None:
        if submission.state == "queued":
            submission.state = "failed"
            self._core.journal.submission(submission)
        conversation.idle()
        self._core.notices.say(
            conversation, "info" if submission.state != "failed" else "error", why
        )
        self._core.router.updated(conversation)

    async def stop(self, conversation_id: str) -> StopOutcome:
        """Stop the running turn (or the one being prepared); queued messages are held.

        Returns `stopped` when the turn ended, `stop_requested` when codex was asked but the
        turn has not ended yet, `nothing_to_stop` when nothing runs.
        """
        conversation = self._core.conversations.get(conversation_id)
        turn_id = conversation.turn_id
        outcome = await stop_turn(self._core, conversation)
        messages = {
            "stopped": "Stopped.",
            "stop_requested": "Asked codex to stop; the turn has not ended yet.",
            "nothing_to_stop": "Nothing to stop: no turn is running.",
        }
        held = (
            f" {len(conversation.queue)} queued message(s) wait for your next message."
            if (conversation.queue and outcome != "nothing_to_stop")
            else ""
        )
        event = StopRequested(
            **self._core.emitter.stamp(conversation.id), turn_id=turn_id, outcome=outcome
        )
        self._core.emitter.emit(event, turn_id)
        self._core.notices.say(conversation, "info", messages[outcome] + held)
        return outcome

    def continue_queue(self, conversation_id: str) -> CommandResult:
        """Run the conversation's queued messages (they wait after a restart or a stop)."""
        conversation = self._core.conversations.get(conversation_id)
        if not conversation.queue:
            return self._core.notices.failed(conversation.id, "No queued messages wait.")
        waiting = len(conversation.queue)
        conversation.queue_held = False
        if conversation.state in BUSY_STATES:
            return self._core.notices.told(
                conversation, f"{waiting} queued message(s) run after this turn."
            )
        full = self._room_to_run(conversation)
        if full is not None:
            conversation.queue_held = True
            return self._core.notices.failed(conversation.id, full)
        self.start_next(conversation)
        return self._core.notices.told(conversation, f"Running {waiting} queued message(s).")

    async def reset(
        self, conversation_id: str, close_side_chats: Callable[[str, str], Awaitable[object]]
    ) -> CommandResult:
        """Stop what runs, drop the queue, expire what waits for an answer, close the side
        chats (`close_side_chats`) and start a new thread (generation + 1)."""
        conversation = self._core.conversations.get(conversation_id)
        if conversation.state in BUSY_STATES:
            await stop_turn(self._core, conversation)
        if conversation.turn_id is not None:
            # Asked to stop but not ended yet: the old thread's turn is no longer followed.
            if conversation.submission is not None:
                conversation.submission.state = "unknown"
                self._core.journal.submission(conversation.submission)
            conversation.end_turn(conversation.turn_id)
        conversation.idle()
        dropped = len(conversation.queue)
        self._core.journal.forget(list(conversation.queue))
        conversation.queue.clear()
        conversation.queue_held = False
        for pending in self._core.interactions.pending(conversation.id):
            self._core.router.requests.expire(pending, "the conversation was reset", "codex-deck")
        await close_side_chats(conversation.id, "the conversation was reset")
        old_thread = conversation.thread_id
        conversation.generation += 1
        conversation.thread_id = None
        conversation.thread = None
        conversation.token_usage = None
        if not await self.start_thread(conversation):
            return CommandResult(False, "Could not start a new thread; see the error above.")
        message = f"New thread (generation {conversation.generation})"
        message += f"; the old one ({old_thread}) is kept." if old_thread else "."
        if dropped:
            message += f" Dropped {dropped} queued message(s)."
        self._core.notices.say(conversation, "info", message)
        return CommandResult(True, message)

    def codex_lost(self) -> None:
        """codex went away: each turn in flight ends, what it did unknown (and it is never
        run again by itself)."""
        for conversation in self._core.conversations.all():
            if conversation.state in BUSY_STATES:
                in_flight = [conversation.submission, *conversation.steered]
                for submission in (s for s in in_flight if s is not None):
                    if submission.state == "sent":
                        submission.state = "unknown"
                        self._core.journal.submission(submission)
                        conversation.unsettled.append(submission)
                if conversation.turn_id is not None:
                    conversation.end_turn(conversation.turn_id)
                conversation.lost()
                self._core.notices.say(
                    conversation,
                    "error",
                    "The app-server went away during a turn; what it did is unknown and "
                    "it will not be run again by itself.",
                )
                self._core.router.updated(conversation)


def unrecorded(why: str) -> str:
    """Why a message was not sent: the store could not record it first."""
    return (
        f"codex-deck could not record the message before sending it ({why}), so it was not "
        "sent. Make room on the store's disk, then send it again."
    )
