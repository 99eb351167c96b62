"""Detaching from a shared codex app-server stops nothing, and attaching again follows what
runs there: the turn keeps running, is shown live and can be stopped; what it asks can be
answered by the client that attaches next. A shared codex that is not there at start leaves
the conversations shown as the store keeps them, and a message waits for it."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import anyio
import pytest

from engine.conversations.interactions import Approve
from engine.engine import Engine
from engine.events import (
    EngineStatus,
    InteractionRequested,
    InteractionResolved,
    ItemCompleted,
    Notice,
    TurnCompleted,
)
from engine.protocol import AgentMessageItem, UserMessageItem
from engine.records.store import Store
from engine.results import SubmitOutcome
from engine.scripted_model import ScriptedModel
from engine.settings import Settings
from engine.transport.offline import offline_settings
from engine.transport.websocket import connect
from tests.e2e.eventlog import recording
from tests.e2e.test_attach import listening
from tests.reliability.report import Ledger

pytestmark = pytest.mark.anyio


async def test_detaching_leaves_the_turn_running_and_the_next_attach_follows_it(
    scripted_model: ScriptedModel,
    codex_home: Path,
    workspace: Path,
    tmp_path: Path,
    tally: Ledger,
) -> None:
    url = f"unix://{tmp_path / 'codex.sock'}"
    settings = offline_settings(Settings(), scripted_model, codex_home)
    attach = partial(connect, url)
    async with listening(scripted_model, codex_home, workspace, url) as server:
        async with (
            Engine.open(settings, cwd=workspace, attach=attach) as first,
        ):
            conversation = await first.new_conversation()
            await first.submit(conversation.id, "take your time")
            await scripted_model.wait_until_holding()
            [info] = first.conversations()
            thread_id = info.thread_id
            assert thread_id is not None
        assert server.returncode is None
        assert [c.state for c in first.conversations()] == ["running"], "nothing was stopped"
        traced = first.full_trace(conversation.id)
        said = [e.text for e in traced if isinstance(e, Notice)]
        assert "Detached: the turn runs on in the shared codex." in said

        async with (
            Engine.open(settings, cwd=workspace, attach=attach) as second,
            recording(second) as log,
        ):
            here = await second.new_conversation()
            opened = await second.execute(here.id, f"/open {thread_id}")
            assert opened.ok, opened.message
            assert opened.conversation_id is not None
            # The thread is resumed without its turns: the turn that runs there (silent while
            # the model holds) shows as running only once codex next says something of it.
            scripted_model.release()
            ended = await log.wait_for(
                TurnCompleted, lambda e: e.conversation_id == opened.conversation_id
            )
            assert ended.status == "completed", "detaching interrupted nothing"
    tally(
        "fault", "detached with a turn running, attached again: its end followed", lost=0, reruns=0
    )


async def test_a_request_left_by_a_detached_client_is_asked_of_the_next(
    scripted_model: ScriptedModel,
    codex_home: Path,
    workspace: Path,
    tmp_path: Path,
    tally: Ledger,
) -> None:
    url = f"unix://{tmp_path / 'codex.sock'}"
    settings = offline_settings(Settings(), scripted_model, codex_home)
    attach = partial(connect, url)
    async with listening(scripted_model, codex_home, workspace, url):
        async with (
            Engine.open(settings, cwd=workspace, attach=attach) as first,
            recording(first) as first_log,
        ):
            conversation = await first.new_conversation()
            await first.submit(conversation.id, "approval")
            await first_log.wait_for(InteractionRequested)
            [info] = first.conversations()
            thread_id = info.thread_id
        async with (
            Engine.open(settings, cwd=workspace, attach=attach) as second,
            recording(second) as log,
        ):
            here = await second.new_conversation()
            opened = await second.execute(here.id, f"/open {thread_id}")
            assert opened.ok, opened.message
            assert opened.conversation_id is not None
            asked = await log.wait_for(
                InteractionRequested, lambda e: e.conversation_id == opened.conversation_id
            )
            assert asked.interaction.kind == "command"
            assert not (workspace / "out.txt").exists(), "the first client answered nothing"
            answered = await second.respond(asked.interaction.id, Approve())
            assert answered.ok, answered.message
            assert (await log.turn_completed(opened.conversation_id)).status == "completed"
            assert (workspace / "out.txt").read_text() == "hi-from-exec\n"
    declined = [e for e in first.full_trace(conversation.id) if isinstance(e, InteractionResolved)]
    assert [(e.outcome, e.detail) for e in declined] == [
        ("expired", "codex-deck detached; codex keeps it")
    ]
    tally(
        "fault",
        "detached with an approval waiting: asked again of the next client",
        unapproved=0,
    )


async def test_a_codex_not_there_at_start_leaves_the_conversations_shown_and_a_message_waits(
    scripted_model: ScriptedModel,
    codex_home: Path,
    workspace: Path,
    tmp_path: Path,
    tally: Ledger,
) -> None:
    url = f"unix://{tmp_path / 'codex.sock'}"
    settings = offline_settings(Settings(), scripted_model, codex_home)
    attach = partial(connect, url)
    store_path = tmp_path / "store.sqlite3"
    async with (
        listening(scripted_model, codex_home, workspace, url),
        Engine.open(settings, cwd=workspace, attach=attach, store=Store.open(store_path)) as first,
        recording(first) as first_log,
    ):
        conversation = await first.new_conversation("Kept")
        await first.submit(conversation.id, "count for me")
        await first_log.turn_completed(conversation.id)
    asked_before = len(scripted_model.responses_requests())

    store = Store.open(store_path)
    async with (
        Engine.open(settings, cwd=workspace, attach=attach, store=store) as engine,
        recording(engine) as log,
    ):
        assert not engine.online
        status = engine.engine_status()
        assert status is not None
        assert status.coming_back, status
        assert [c.title for c in engine.conversations()] == ["Kept"]
        history = await engine.history(conversation.id)
        shown = [e.item for e in history if isinstance(e, ItemCompleted)]
        assert [type(item) for item in shown] == [UserMessageItem, AgentMessageItem]
        assert isinstance(shown[1], AgentMessageItem)
        assert "twenty" in shown[1].text
        said = [n.text for n in engine.general_notices()]
        assert any("codex could not be reached" in text for text in said), said

        async with anyio.create_task_group() as tasks:
            sent: list[SubmitOutcome] = []

            async def send() -> None:
                sent.append(await engine.submit(conversation.id, "count for me"))

            tasks.start_soon(send)
            await log.wait_for(EngineStatus, lambda e: e.status == "starting")
            assert not sent, "nothing goes while codex is away"
            async with listening(scripted_model, codex_home, workspace, url):
                await log.wait_for(EngineStatus, lambda e: e.status == "online")
                ended = await log.turn_completed(conversation.id)
                assert ended.status == "completed"
        assert [outcome.how for outcome in sent] == ["started"]
        assert len(scripted_model.responses_requests()) == asked_before + 1, "it went once"
    tally(
        "fault", "codex not there at start: conversations shown, a message waits", lost=0, reruns=0
    )
