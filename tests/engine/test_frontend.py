"""The demo backend on a head start made before the engine was imported and greeted (as
`codex-deck --demo` makes one): its codex is taken up, and its throw-away place is removed at
the end; its model runs in a process of its own, which ends with the place or with the process
that made it."""

from __future__ import annotations

import os
import select
import subprocess
import sys

import anyio
import pytest

from engine.engine import Engine
from engine.frontend import demo_backend
from engine.settings import Settings
from engine.transport.appserver import greet
from engine.transport.binary import find_codex
from engine.transport.launch import launch_for
from engine.transport.offline import DemoPlace
from engine.transport.process import spawn

pytestmark = pytest.mark.anyio


async def test_the_demo_takes_up_its_head_start_and_removes_its_place() -> None:
    place = DemoPlace.make()
    offline = place.settings(Settings())
    early = greet(spawn(launch_for(offline, find_codex(None).path, place.workspace)))
    assert early.greeted
    opener = demo_backend(Settings(), place, early)
    async with opener() as backend:
        assert isinstance(backend, Engine)
        assert backend.offline
        assert backend.app_server_pid == early.popen.pid
        conversation = await backend.new_conversation()
        assert conversation.cwd == str(place.workspace)
    assert early.popen.poll() is not None
    assert not await anyio.Path(place.scratch.name).exists()
    async with opener() as again:  # a second opening makes a place of its own
        assert isinstance(again, Engine)
        assert again.app_server_pid != early.popen.pid


def test_the_demos_model_runs_apart_and_ends_with_the_place() -> None:
    place = DemoPlace.make()
    model = place.model
    assert model.pid != os.getpid()
    place.close()
    assert model.poll() is not None


def test_the_demos_model_ends_when_the_process_that_made_it_is_killed() -> None:
    """SIGKILL of codex-deck leaves no scripted model behind: it sees its input close."""
    script = (
        "from engine.transport.offline import DemoPlace\n"
        "place = DemoPlace.make()\n"
        "print(place.model.pid, flush=True)\n"
        "import sys\nsys.stdin.read()\n"
    )
    with subprocess.Popen(
        [sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    ) as maker:
        assert maker.stdout is not None
        pid = int(maker.stdout.readline())
        model = os.pidfd_open(pid)
        maker.kill()
    try:
        ended, _, _ = select.select([model], [], [], 10)
        assert ended, "the model runs on"
    finally:
        os.close(model)
