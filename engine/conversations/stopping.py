"""Stopping a turn: codex is asked to interrupt it (or a `!command`'s process is ended), and
the stop waits a little for the turn to end."""

from __future__ import annotations

import anyio

from engine import protocol as wire
from engine.conversations.conversation import Conversation
from engine.conversations.core import Core
from engine.errors import ConnectionClosed, RpcError
from engine.events import BUSY_STATES, StopOutcome

STOP_WAIT_SECONDS = 3.0
"""How long /stop waits for the turn to end before it says "stop requested"."""


async def stop_turn(core: Core, conversation: Conversation) -> StopOutcome:
    """Ask codex to stop the conversation's turn (or stop the one being prepared) and wait
    a little for it to end; what is queued now is held."""
    if conversation.state not in BUSY_STATES:
        return "nothing_to_stop"
    # What is queued now waits (for the next message, or /continue); what is queued
    # after the stop runs as it comes.
    conversation.queue_held = bool(conversation.queue)
    conversation.stop_requested = True
    if conversation.turn_id is None:
        if conversation.submission is not None and conversation.submission.state == "queued":
            return "stopped"
        return "stop_requested"
    conversation.stopping()
    core.router.updated(conversation)
    ended = conversation.turn_ended
    if not await interrupt(core, conversation):
        return "nothing_to_stop" if ended.is_set() else "stop_requested"
    with anyio.move_on_after(STOP_WAIT_SECONDS):
        await ended.wait()
    return "stopped" if ended.is_set() else "stop_requested"


async def interrupt(core: Core, conversation: Conversation) -> bool:
    """Ask codex to end the running turn (a `!command`'s process, for one of those); False
    if it could not be asked."""
    if conversation.thread_id is None or conversation.turn_id is None:
        return False
    shell = core.router.shell_runs.of_turn(conversation.turn_id)
    if shell is not None:  # a `!command` under command/exec: its process is ended
        shell.stopped = True
        ending = wire.CommandExecTerminateParams(process_id=shell.process_id)
        try:
            await core.server.command_exec_terminate(ending)
        except (RpcError, ConnectionClosed):
            return False
        return True
    params = wire.TurnInterruptParams(
        thread_id=conversation.thread_id, turn_id=conversation.turn_id
    )
    try:
        await core.server.turn_interrupt(params)
    except (RpcError, ConnectionClosed):
        return False
    return True
