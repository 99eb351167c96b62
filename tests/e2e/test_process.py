"""The app-server process: killed mid-turn, refusing its config, started in a directory that
is not there, closed gracefully, and giving way to the app for the CPU."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import anyio
import pytest

from engine.errors import ConnectionClosed, SettingsError
from engine.events import ItemCompleted
from engine.protocol import (
    AgentMessageDelta,
    CommandExecutionItem,
    TextInput,
    ThreadListParams,
    ThreadListResult,
    ThreadReadParams,
    TurnStartParams,
)
from engine.scripted_model import load_script, run_scripted_model
from engine.scripted_model.scenario import builtin_files
from engine.transport.appserver import spawn_app_server
from engine.transport.binary import find_codex
from engine.transport.launch import Launch
from engine.transport.process import CODEX_NICE, AppServerProcess, spawn
from engine.transport.rpc import BadLine
from tests.e2e.conftest import Codex, open_engine

pytestmark = pytest.mark.anyio

GROUP_PROBE = """
[[scenario]]
name = "group-probe"
description = "runs a command that prints its scheduling group (if any) and its niceness"
match = '(?i)\\bprobe the group\\b'

[[scenario.reply]]
exec = "cat /proc/self/autogroup 2>/dev/null; echo niceness $(nice)"

[[scenario.reply]]
text = "done"
"""


async def test_killed_mid_turn_fails_pending_calls_at_once_naming_the_exit(codex: Codex) -> None:
    process = codex.server.transport
    assert isinstance(process, AppServerProcess)
    thread_id = await codex.start_thread()
    failures: list[ConnectionClosed] = []
    async with codex.server.notifications() as notifications:
        await codex.start_held_turn(thread_id, notifications)
        # Stopped, the server cannot answer: the next call is surely pending when it dies.
        os.kill(process.pid, signal.SIGSTOP)

        async def read_thread() -> None:
            try:
                await codex.server.thread_read(ThreadReadParams(thread_id=thread_id))
            except ConnectionClosed as error:
                failures.append(error)

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(read_thread)
            await anyio.wait_all_tasks_blocked()
            assert failures == []
            killed_at = anyio.current_time()
            os.kill(process.pid, signal.SIGKILL)
        took = anyio.current_time() - killed_at
        rest = [n async for n in notifications if not isinstance(n, BadLine)]
    assert len(failures) == 1
    assert str(failures[0]).startswith("codex app-server was killed by SIGKILL")
    assert took < 2.0, f"the pending call took {took:.2f} s to fail"
    assert process.returncode == -signal.SIGKILL
    assert all(not isinstance(n, AgentMessageDelta) or n.delta for n in rest)
    with pytest.raises(ConnectionClosed, match="killed by SIGKILL"):
        await codex.server.thread_read(ThreadReadParams(thread_id=thread_id))


async def test_a_config_codex_refuses_fails_the_start_with_its_message(
    codex_home: Path, workspace: Path
) -> None:
    launch = Launch(
        binary=find_codex(None).path,
        cwd=workspace,
        codex_home=codex_home,
        overrides=('approval_policy="untrusted"',),
    )
    with pytest.raises(ConnectionClosed) as caught, anyio.fail_after(30):
        async with spawn_app_server(launch):
            pass
    message = str(caught.value)
    assert message.startswith("codex app-server exited with code 1")
    assert "untrusted" in message


async def test_closing_ends_the_process(codex_home: Path, workspace: Path) -> None:
    launch = Launch(binary=find_codex(None).path, cwd=workspace, codex_home=codex_home)
    async with spawn_app_server(launch) as server:
        process = server.transport
        assert isinstance(process, AppServerProcess)
        assert process.returncode is None
        assert server.info.codex_home == str(codex_home)
        assert server.info.user_agent.startswith("codex_deck/")
    assert process.returncode is not None


async def test_requests_that_act_on_a_thread_wait_while_it_is_held(codex: Codex) -> None:
    thread_id = await codex.start_thread()
    resumed = anyio.Event()
    codex.server.hold(resumed)
    turns: list[str] = []

    async def start_turn() -> None:
        params = TurnStartParams(thread_id=thread_id, input=[TextInput(text="count for me")])
        turns.append((await codex.server.turn_start(params)).turn.id)

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(start_turn)
        await codex.server.call("thread/list", ThreadListParams(limit=5), ThreadListResult)
        read = await codex.server.thread_read(ThreadReadParams(thread_id=thread_id))
        assert read.thread.id == thread_id
        assert turns == [], "the turn waited while the reads went at once"
        assert codex.model.responses_requests() == []
        resumed.set()
    assert len(turns) == 1


async def test_a_working_directory_that_is_not_there_is_named_not_the_binary(
    codex_home: Path, tmp_path: Path
) -> None:
    gone = tmp_path / "gone"
    launch = Launch(binary=find_codex(None).path, cwd=gone, codex_home=codex_home)
    with pytest.raises(SettingsError) as caught:
        spawn(launch)
    assert str(caught.value) == f"cannot start codex in {gone}: no such directory"


async def test_codex_gives_way_to_the_app_and_the_commands_it_runs_keep_their_priority(
    codex_home: Path, workspace: Path, tmp_path: Path
) -> None:
    """Where the kernel has per-session scheduling groups, codex's is niced and the command's
    is another, at nice 0; either way codex's own threads and the command keep niceness 0."""
    scenario = tmp_path / "probe.toml"
    scenario.write_text(GROUP_PROBE)
    async with (
        run_scripted_model(load_script([*builtin_files(), scenario])) as model,
        open_engine(model, codex_home, workspace) as (engine, log),
    ):
        pid = engine.app_server_pid
        assert pid is not None
        group = anyio.Path(f"/proc/{pid}/autogroup")
        codex_group = (await group.read_text()).split() if await group.exists() else []
        codex_niceness = os.getpriority(os.PRIO_PROCESS, pid)
        conversation = await engine.new_conversation()
        await engine.submit(conversation.id, "probe the group")
        await log.turn_completed(conversation.id)
    commands = [
        event.item
        for event in log.of(ItemCompleted, conversation.id)
        if isinstance(event.item, CommandExecutionItem)
    ]
    assert len(commands) == 1
    # What the command printed (a login shell may say other things first).
    lines = (commands[0].aggregated_output or "").splitlines()
    assert codex_niceness == 0
    assert "niceness 0" in lines
    if codex_group:
        assert codex_group[1:] == ["nice", str(CODEX_NICE)]
        command_group = next(line for line in lines if "autogroup-" in line).split()
        assert command_group[0] != codex_group[0], "the command runs in a group of its own"
        assert command_group[1:] == ["nice", "0"]
