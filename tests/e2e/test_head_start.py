"""Codex spawned before the engine is imported (`engine.transport.process.spawn`), greeted
(`engine.transport.appserver.greet`), then taken up by `Engine.open(early=…)`, ended when it
does not fit, and ended when nothing takes it up."""

from __future__ import annotations

import select
from pathlib import Path

import pytest

from engine.engine import Engine
from engine.protocol import ThreadStartParams
from engine.scripted_model import ScriptedModel
from engine.settings import Settings
from engine.transport.appserver import EXPERIMENTAL_API, greet, spawn_app_server
from engine.transport.binary import find_codex
from engine.transport.launch import Launch, launch_for
from engine.transport.offline import offline_settings
from engine.transport.process import Spawned, spawn
from engine.transport.rpc import BadLine, Notification
from tests.e2e.eventlog import recording

pytestmark = pytest.mark.anyio


def spawned_for(settings: Settings, cwd: Path) -> Spawned:
    """codex spawned as the engine would start it for `settings` in `cwd`."""
    return spawn(launch_for(settings, find_codex(None).path, cwd))


async def test_codex_spawned_early_is_taken_up_and_answers(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path
) -> None:
    settings = offline_settings(Settings(), scripted_model, codex_home)
    early = spawned_for(settings, workspace)
    async with Engine.open(settings, cwd=workspace, early=early) as engine:
        assert engine.app_server_pid == early.popen.pid
        async with recording(engine) as log:
            conversation = await engine.new_conversation()
            await engine.submit(conversation.id, "show markdown")
            done = await log.turn_completed(conversation.id)
    assert done.status == "completed"
    assert len(scripted_model.requests) == 1
    assert early.popen.poll() is not None  # closed with the engine


async def test_codex_greeted_early_answers_before_it_is_taken_up_and_once(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path
) -> None:
    settings = offline_settings(Settings(), scripted_model, codex_home)
    launch = launch_for(settings, find_codex(None).path, workspace)
    early = greet(spawn(launch))
    assert early.greeted
    # Its answer comes while nothing of the engine is there to read it.
    assert select.select([early.stdout], [], [], 30)[0]
    opened = spawn_app_server(launch, experimental_api=EXPERIMENTAL_API, spawned=early)
    async with opened as server:
        assert server.info.user_agent.startswith("codex_deck/")
        with server.rpc.subscribe() as incoming:
            await server.thread_start(ThreadStartParams(cwd=str(workspace)))
            said = []
            async for message in incoming:
                said.append(message)
                if isinstance(message, Notification) and message.method == "thread/started":
                    break
    # `initialize` went once: a second one would have had an error for an answer, a
    # response to no request of this connection's.
    assert not [message for message in said if isinstance(message, BadLine)]


async def test_codex_spawned_for_other_settings_is_ended_and_a_fitting_one_started(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path
) -> None:
    settings = offline_settings(Settings(), scripted_model, codex_home)
    elsewhere = spawned_for(settings, codex_home)
    async with Engine.open(settings, cwd=workspace, early=elsewhere) as engine:
        assert elsewhere.popen.poll() is not None
        assert engine.app_server_pid not in (None, elsewhere.popen.pid)
        conversation = await engine.new_conversation()
        assert conversation.cwd == str(workspace)


def test_codex_spawned_and_never_taken_up_exits_when_closed(
    codex_home: Path, workspace: Path
) -> None:
    early = spawn(Launch(binary=find_codex(None).path, cwd=workspace, codex_home=codex_home))
    assert early.popen.poll() is None
    early.close()
    assert early.popen.returncode == 0  # it ended at the end of its input, not killed
