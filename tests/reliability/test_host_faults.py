"""One host of a deck fails (`[hosts]`): unreachable from the start, its listening app-server
killed, its ssh connection dropped. That host says why and comes back by itself; the other
hosts' conversations run on untouched meanwhile. Rows of the fault matrix."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path

import anyio
import anyio.abc
import pytest

from engine.deck import Deck
from engine.events import EngineStatus, Notice
from engine.frontend import deck_backend
from engine.scripted_model import ScriptedModel
from engine.settings import HostSettings
from tests.e2e.eventlog import EventLog
from tests.e2e.test_attach import free_port, listening
from tests.e2e.test_hosts import machines, on_deck
from tests.reliability.report import Ledger, asked_of, lost_and_reruns

pytestmark = pytest.mark.anyio

QUICK = "count for me"
QUIT_SECONDS = 5
"""Well under ssh's connect timeout (10 s)."""


def tallied(
    tally: Ledger, case: str, model: ScriptedModel, log: EventLog, sent: int, *failing: str
) -> None:
    """Count the case: of `sent` messages, lost and sent again; as crashes, how many times a
    host other than the `failing` ones was said to be anything but online (none may be)."""
    lost, reruns = lost_and_reruns(asked_of(model), [QUICK] * sent)
    crashes = sum(1 for e in log.of(EngineStatus) if e.host not in failing and e.status != "online")
    tally("fault", f"deck: {case}", lost=lost, reruns=reruns, crashes=crashes)
    assert (lost, reruns, crashes) == (0, 0, 0)


async def turn_on(deck: Deck, log: EventLog, conversation: str, count: int) -> None:
    await deck.submit(conversation, QUICK)
    assert (await log.turn_completed(conversation, count)).status == "completed"


def ssh_client_of(port: int) -> int:
    """The pid of the one ssh client connected to the sshd on `port` (the deck's, to the
    box)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if argv[0] == b"ssh" and str(port).encode() in argv and b"--" in argv:
            found.append(int(entry.name))
    assert len(found) == 1, found
    return found[0]


@asynccontextmanager
async def black_hole() -> AsyncIterator[int]:
    """A port on 127.0.0.1 that takes connections and never says a word (a host whose
    packets go nowhere, as ssh sees it)."""
    listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=0)
    port = listener.extra(anyio.abc.SocketAttribute.local_port)

    async def hold(stream: anyio.abc.SocketStream) -> None:
        async with stream:
            await anyio.sleep_forever()

    async with listener, anyio.create_task_group() as tasks:
        tasks.start_soon(listener.serve, hold)
        yield port
        tasks.cancel_scope.cancel()


async def test_hosts_unreachable_from_the_start_hold_up_no_other(
    scripted_model: ScriptedModel, tmp_path: Path, tally: Ledger
) -> None:
    async with machines(scripted_model, tmp_path) as (there, _), black_hole() as silent:
        options = ["-F", str(there.sshd.config)]
        refused = HostSettings(
            url=f"ssh://{there.sshd.user}@127.0.0.1:{free_port()}", ssh_options=options
        )
        hole = HostSettings(url=f"ssh://{there.sshd.user}@127.0.0.1:{silent}", ssh_options=options)
        hosts = {**there.settings.hosts, "gone": refused, "hole": hole}
        async with on_deck(replace(there.settings, hosts=hosts)) as (deck, log, made):
            for conversation in made.values():
                await turn_on(deck, log, conversation, 1)
            # All of it while the silent host is still being reached.
            [reaching] = [state for state in deck.host_states() if state.host == "hole"]
            assert reaching.status == "starting", reaching
            failed = await log.wait_for(
                EngineStatus, lambda e: e.host == "gone" and e.status == "failed"
            )
            assert "Connection refused" in failed.detail
            said = await log.wait_for(Notice, lambda e: e.text.startswith("gone: codex could"))
            assert "Connection refused" in said.text
            silence = await log.wait_for(
                EngineStatus, lambda e: e.host == "hole" and e.status == "failed"
            )
            assert "timed out" in silence.detail
            case = "hosts unreachable from the start (ssh refused; silent)"
            tallied(tally, case, scripted_model, log, 3, "gone", "hole")


async def test_a_hosts_app_server_killed_comes_back_and_the_others_run_on(
    scripted_model: ScriptedModel, tmp_path: Path, tally: Ledger
) -> None:
    async with (
        machines(scripted_model, tmp_path) as (there, listener),
        on_deck(there.settings) as (deck, log, made),
    ):
        listener.kill()
        await listener.wait()
        await log.wait_for(EngineStatus, lambda e: e.host == "sock" and e.status == "starting")
        for name in ("local", "box"):
            await turn_on(deck, log, made[name], 1)
        async with listening(
            scripted_model, there.homes["sock"], there.workspaces["sock"], there.socket_url
        ):
            await log.wait_for(
                EngineStatus,
                lambda e: e.host == "sock" and e.detail.startswith("codex is back"),
            )
            await turn_on(deck, log, made["sock"], 1)
        case = "one host's app-server (unix socket) killed"
        tallied(tally, case, scripted_model, log, 3, "sock")


async def test_a_dropped_ssh_connection_is_made_again_and_the_others_run_on(
    scripted_model: ScriptedModel, tmp_path: Path, tally: Ledger
) -> None:
    async with (
        machines(scripted_model, tmp_path) as (there, _),
        on_deck(there.settings) as (deck, log, made),
    ):
        await turn_on(deck, log, made["box"], 1)
        os.kill(ssh_client_of(there.sshd.port), signal.SIGKILL)
        dropped = await log.wait_for(
            EngineStatus, lambda e: e.host == "box" and e.status == "failed"
        )
        # Told without the warnings codex wrote as it started (they explain nothing here).
        assert dropped.detail == "ssh to 127.0.0.1 (codex app-server there) was killed by SIGKILL"
        for name in ("local", "sock"):
            await turn_on(deck, log, made[name], 1)
        await log.wait_for(
            EngineStatus, lambda e: e.host == "box" and e.detail.startswith("codex is back")
        )
        # The thread goes on where it was, in a codex started again over a new connection.
        await turn_on(deck, log, made["box"], 2)
        tallied(tally, "one host's ssh connection dropped", scripted_model, log, 4, "box")


async def test_quitting_waits_for_no_host_still_being_reached(
    scripted_model: ScriptedModel, tmp_path: Path, tally: Ledger
) -> None:
    """A host that says nothing is given up on as the deck closes, not waited for (ssh
    would fail it only after its 10 s connect timeout)."""
    async with machines(scripted_model, tmp_path) as (there, _), black_hole() as silent:
        hole = HostSettings(
            url=f"ssh://{there.sshd.user}@127.0.0.1:{silent}",
            ssh_options=["-F", str(there.sshd.config)],
        )
        settings = replace(there.settings, hosts={"hole": hole})
        async with deck_backend(settings)() as deck:
            assert isinstance(deck, Deck)
            [reaching] = [state for state in deck.host_states() if state.host == "hole"]
            assert reaching.status == "starting"
            quitting = time.monotonic()
        assert time.monotonic() - quitting < QUIT_SECONDS
        tally("fault", "deck: quit while a silent host is still being reached", crashes=0)
