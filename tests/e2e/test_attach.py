"""Attaching to a codex app-server that is already running (`--listen unix://…` or
`ws://…` with a capability token), and reconnecting when its listener comes back."""

from __future__ import annotations

import os
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path

import anyio
import pytest
from anyio.abc import Process
from anyio.streams.text import TextReceiveStream

from engine.engine import Engine
from engine.errors import ConnectionClosed
from engine.events import EngineStatus
from engine.scripted_model import ScriptedModel
from engine.settings import Settings
from engine.transport.binary import find_codex
from engine.transport.launch import launch_for
from engine.transport.offline import ModelServer, offline_settings
from engine.transport.websocket import connect, daemon_socket, running_daemon
from tests.e2e.eventlog import recording

pytestmark = pytest.mark.anyio

DEADLINE_SECONDS = 30


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@asynccontextmanager
async def listening(
    model: ModelServer, home: Path, workspace: Path, *listen: str
) -> AsyncIterator[Process]:
    """`codex app-server --listen …` on the scripted model, as someone would start it;
    entered once codex logs that it listens."""
    settings = offline_settings(Settings(), model, home)
    argv = [*launch_for(settings, find_codex(None).path, workspace).argv(), "--listen", *listen]
    env = {**os.environ, "CODEX_HOME": str(home), "RUST_LOG": "codex_app_server_transport=info"}
    async with logging_process(argv, env, "listening", DEADLINE_SECONDS) as process:
        yield process


@asynccontextmanager
async def logging_process(
    argv: list[str], env: dict[str, str] | None, ready_when: str, seconds: float
) -> AsyncIterator[Process]:
    """`argv` running, entered once its stderr says `ready_when` (read to its end meanwhile:
    a full pipe would stop it); killed on the way out."""
    process = await anyio.open_process(argv, env=env)
    ready = anyio.Event()

    async def read_log() -> None:
        assert process.stderr is not None
        said = ""
        async for text in TextReceiveStream(process.stderr):
            said = (said + text)[-4096:]
            if ready_when in said:
                ready.set()

    try:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(read_log)
            with anyio.fail_after(seconds):
                await ready.wait()
            yield process
            tasks.cancel_scope.cancel()
    finally:
        if process.returncode is None:
            process.kill()
        await process.wait()


async def test_attach_over_a_unix_socket_runs_a_turn(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path, tmp_path: Path
) -> None:
    url = f"unix://{tmp_path / 'codex.sock'}"
    async with listening(scripted_model, codex_home, workspace, url) as server:
        settings = offline_settings(Settings(), scripted_model, codex_home)
        async with (
            Engine.open(settings, cwd=workspace, attach=partial(connect, url)) as engine,
            recording(engine) as log,
        ):
            assert engine.app_server_pid is None
            conversation = await engine.new_conversation()
            await engine.submit(conversation.id, "count for me")
            assert (await log.turn_completed(conversation.id)).status == "completed"
        assert server.returncode is None


async def test_a_ws_listener_with_a_capability_token(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path, tmp_path: Path
) -> None:
    token, wrong = tmp_path / "token", tmp_path / "wrong"
    token.write_text("a-long-capability-token-1234\n")
    wrong.write_text("not-it\n")
    url = f"ws://127.0.0.1:{free_port()}"
    auth = ("--ws-auth", "capability-token", "--ws-token-file", str(token))
    async with listening(scripted_model, codex_home, workspace, url, *auth):
        with pytest.raises(ConnectionClosed, match=r"refused the connection .*401") as refused:
            await connect(url, wrong)
        assert "invalid websocket bearer token" in str(refused.value)
        with pytest.raises(ConnectionClosed, match="missing websocket bearer token"):
            await connect(url)
        settings = offline_settings(Settings(), scripted_model, codex_home)
        attach = partial(connect, url, token)
        async with (
            Engine.open(settings, cwd=workspace, attach=attach) as engine,
            recording(engine) as log,
        ):
            conversation = await engine.new_conversation()
            await engine.submit(conversation.id, "show markdown")
            assert (await log.turn_completed(conversation.id)).status == "completed"


async def test_a_dropped_connection_is_made_again_when_the_listener_is_back(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path, tmp_path: Path
) -> None:
    url = f"unix://{tmp_path / 'codex.sock'}"
    settings = offline_settings(Settings(), scripted_model, codex_home)
    async with (
        listening(scripted_model, codex_home, workspace, url) as first,
        Engine.open(settings, cwd=workspace, attach=partial(connect, url)) as engine,
        recording(engine) as log,
    ):
        conversation = await engine.new_conversation()
        await engine.submit(conversation.id, "count for me")
        await log.turn_completed(conversation.id)
        first.kill()
        await first.wait()
        await log.wait_for(EngineStatus, lambda e: e.status == "starting")
        async with listening(scripted_model, codex_home, workspace, url):
            back = await log.wait_for(EngineStatus, lambda e: e.status == "online")
            assert back.detail.startswith("codex is back")
            reconnecting = [e.detail for e in log.of(EngineStatus) if e.status == "starting"]
            assert reconnecting[0] == "reconnecting to codex in 0.5 s (attempt 1)"
            await engine.submit(conversation.id, "count for me")
            assert (await log.turn_completed(conversation.id, count=2)).status == "completed"


async def test_a_running_daemon_for_this_codex_home_is_found(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path
) -> None:
    assert await running_daemon(codex_home) is None
    url = f"unix://{daemon_socket(codex_home)}"
    async with listening(scripted_model, codex_home, workspace, url):
        assert await running_daemon(codex_home) == url


async def test_with_codex_home_unset_the_daemon_is_looked_for_where_codex_home_says(
    scripted_model: ScriptedModel,
    codex_home: Path,
    workspace: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CODEX_HOME", str(codex_home))
    url = f"unix://{daemon_socket(codex_home)}"
    async with listening(scripted_model, codex_home, workspace, url):
        assert await running_daemon(None) == url


async def test_an_error_inside_an_attached_engine_comes_out_of_it(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path, tmp_path: Path
) -> None:
    """Leaving an attached engine by an error raises that error: closing the connection as
    the engine's tasks were cancelled once put their cancellation in its place, and the
    cancelled scope swallowed it (every assertion inside such a block passed)."""
    url = f"unix://{tmp_path / 'codex.sock'}"
    settings = offline_settings(Settings(), scripted_model, codex_home)
    async with listening(scripted_model, codex_home, workspace, url):
        with pytest.raises(LookupError, match="left by this"):
            async with Engine.open(settings, cwd=workspace, attach=partial(connect, url)):
                raise LookupError("left by this")
