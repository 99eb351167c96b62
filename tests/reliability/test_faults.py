"""Faults on the real binary: an app-server stopped (SIGSTOP) mid-turn and continued, a side
chat's codex killed mid-answer, a model that stalls past codex's idle timeout, and an approval
left waiting while such timeouts fire. Nothing is lost, nothing runs twice or unapproved, and
the engine is usable afterwards."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import anyio
import pytest

from engine.events import EngineStatus, InteractionRequested, ItemDelta, Notice
from engine.scripted_model import ScriptedModel
from engine.settings import CodexSettings, Settings
from engine.side_chats.chat import SideChatClosed
from engine.transport.offline import OFFLINE_PROVIDER
from tests.e2e.conftest import open_engine
from tests.e2e.eventlog import EventLog
from tests.e2e.test_recovery import asked
from tests.reliability.report import Ledger, asked_of, lost_and_reruns

pytestmark = pytest.mark.anyio

IDLE_TIMEOUT_MS = 800
STALLING = Settings(
    codex=CodexSettings(
        config=[f"model_providers.{OFFLINE_PROVIDER}.stream_idle_timeout_ms={IDLE_TIMEOUT_MS}"]
    )
)
"""Settings under which codex gives up on a model stream that stalls for 800 ms."""
STOPPED_SECONDS = 1.0
"""How long codex stays stopped: long enough that a reply could have come many times over."""


def failures(log: EventLog) -> int:
    """How many times the engine said codex failed."""
    return sum(1 for status in log.of(EngineStatus) if status.status == "failed")


async def test_a_stopped_codex_holds_the_stop_until_continued_then_ends_the_turn(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path, tally: Ledger
) -> None:
    async with open_engine(scripted_model, codex_home, workspace) as (engine, log):
        conversation = await engine.new_conversation()
        await engine.submit(conversation.id, "take your time")
        await scripted_model.wait_until_holding()
        await log.wait_for(ItemDelta, lambda e: e.kind == "agent_message")
        pid = engine.app_server_pid
        assert pid is not None
        os.kill(pid, signal.SIGSTOP)
        try:
            results = []

            async def stop() -> None:
                results.append(await engine.execute(conversation.id, "/stop"))

            async with anyio.create_task_group() as tasks:
                tasks.start_soon(stop)
                with anyio.move_on_after(STOPPED_SECONDS):
                    await log.turn_completed(conversation.id)
                assert results == [], "nothing can answer the stop while codex is stopped"
                assert engine.conversations()[0].state == "stopping"
                os.kill(pid, signal.SIGCONT)
        finally:
            os.kill(pid, signal.SIGCONT)
        [stopped] = results
        assert (stopped.ok, stopped.message) == (True, "stopped")
        assert (await log.turn_completed(conversation.id)).status == "interrupted"
        assert engine.app_server_pid == pid, "codex was not restarted: it was only stopped"

        await engine.submit(conversation.id, "count for me")
        assert (await log.turn_completed(conversation.id, 2)).status == "completed"
        lost, reruns = lost_and_reruns(asked_of(scripted_model), ["take your time", "count for me"])
        restarts = int(engine.app_server_pid != pid)
        tally(
            "fault",
            "codex SIGSTOP mid-turn, /stop, SIGCONT",
            lost=lost,
            reruns=reruns,
            crashes=failures(log) + restarts,
        )
        assert asked(scripted_model, "take your time") == 1
        assert asked(scripted_model, "count for me") == 1


async def test_a_side_chat_killed_mid_answer_is_closed_with_a_reason_and_the_parent_goes_on(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path, tally: Ledger
) -> None:
    async with open_engine(scripted_model, codex_home, workspace) as (engine, log):
        conversation = await engine.new_conversation()
        await engine.submit(conversation.id, "count for me")
        assert (await log.turn_completed(conversation.id)).status == "completed"
        side = await engine.open_side_chat(conversation.id)
        pid = side.pid
        assert pid is not None
        refused: list[str] = []

        async def ask() -> None:
            try:
                await side.ask("take your time")
            except SideChatClosed as error:
                refused.append(str(error))

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(ask)
            await scripted_model.wait_until_holding()
            os.kill(pid, signal.SIGKILL)
        [said] = refused
        assert "open a new one with /side" in said
        assert side.state == "failed"
        assert side.detail.startswith("its codex process stopped"), side.detail
        scripted_model.release()

        await engine.submit(conversation.id, "count for me")
        assert (await log.turn_completed(conversation.id, 2)).status == "completed"
        again = await engine.open_side_chat(conversation.id)
        assert again.pid not in (None, pid)
        sent = ["count for me", "take your time", "count for me"]
        lost, reruns = lost_and_reruns(asked_of(scripted_model), sent)
        tally(
            "fault",
            "side chat's codex SIGKILLed mid-answer",
            lost=lost,
            reruns=reruns,
            crashes=failures(log),
        )
        assert asked(scripted_model, "take your time") == 1, "the side question was not re-sent"


async def test_a_model_that_stalls_past_the_idle_timeout_fails_the_turn_once(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path, tally: Ledger
) -> None:
    async with open_engine(scripted_model, codex_home, workspace, STALLING) as (engine, log):
        conversation = await engine.new_conversation()
        await engine.submit(conversation.id, "take your time")
        await scripted_model.wait_until_holding()
        failed = await log.turn_completed(conversation.id)
        assert failed.status == "failed"
        assert "idle timeout" in (failed.error or "")
        notices = [notice.text for notice in log.of(Notice, conversation.id)]
        assert any("idle timeout waiting for SSE" in text for text in notices), notices
        scripted_model.release()

        await engine.submit(conversation.id, "count for me")
        assert (await log.turn_completed(conversation.id, 2)).status == "completed"
        lost, reruns = lost_and_reruns(asked_of(scripted_model), ["take your time", "count for me"])
        tally(
            "fault",
            "model stalls past codex's idle timeout",
            lost=lost,
            reruns=reruns,
            crashes=failures(log),
        )
        assert asked(scripted_model, "take your time") == 1, "the stalled turn was not re-run"


async def test_an_approval_left_waiting_past_codex_timeouts_still_waits_for_the_user(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path, tally: Ledger
) -> None:
    async with open_engine(scripted_model, codex_home, workspace, STALLING) as (engine, log):
        waiting = await engine.new_conversation()
        await engine.submit(waiting.id, "approval")
        asked = (await log.wait_for(InteractionRequested)).interaction
        stalled = await engine.new_conversation()
        await engine.submit(stalled.id, "take your time")
        await scripted_model.wait_until_holding()
        timed_out = await log.turn_completed(stalled.id)
        still = [info.id for info in engine.pending_interactions(waiting.id)]
        ran_meanwhile = (workspace / "out.txt").exists()
        scripted_model.release()
        declined = await engine.execute(waiting.id, f"/decline {asked.id}")
        done = await log.turn_completed(waiting.id)
        ran = ran_meanwhile or (workspace / "out.txt").exists()
        tally(
            "security",
            "an approval left waiting past codex's idle timeout: still asks, never taken as given",
            unapproved=int(ran),
            crashes=failures(log),
        )
        assert timed_out.status == "failed", "another turn's stream timed out meanwhile"
        assert still == [asked.id]
        assert declined.ok, declined.message
        assert done.status == "completed"
        assert not ran
