"""The disk under the store fills up (a 2 MiB tmpfs, filled to the last byte): codex-deck
says it cannot save and sends no message it could not record first (after a crash nothing
would account for it); a turn that runs goes on and ends; nothing is sent twice; once there
is room again it saves again, so a restart finds what happened meanwhile. Killed with the
disk full, the restarted app accounts for every message that went out."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.events import ItemDelta, Notice
from engine.scripted_model import ScriptedModel
from tests.conftest import local_settings
from tests.e2e.test_recovery import deck
from tests.reliability.report import Ledger, asked_in, asked_of, lost_and_reruns
from tests.reliability.terminal import running
from tests.reliability.test_faults import failures

pytestmark = pytest.mark.anyio


@contextlib.contextmanager
def small_disk(where: Path) -> Iterator[Path]:
    """A 2 MiB file system of its own at `where` (tmpfs; needs root, as CI has)."""
    where.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=2m,mode=0700", "tmpfs", str(where)],
        capture_output=True,
        text=True,
    )
    assert mounted.returncode == 0, f"a small disk could not be made: {mounted.stderr}"
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=True)


def fill(disk: Path) -> Path:
    """Write to a file on `disk` until the disk is full; returns the file."""
    filler = disk / "filler"
    with filler.open("wb", buffering=0) as file, contextlib.suppress(OSError):
        while file.write(b"\0" * 4096):
            pass
    return filler


async def test_a_full_disk_is_said_and_the_conversation_goes_on(
    scripted_model: ScriptedModel,
    codex_home: Path,
    workspace: Path,
    tmp_path: Path,
    tally: Ledger,
) -> None:
    with small_disk(tmp_path / "disk") as disk:
        store_path = disk / "store.sqlite3"
        async with deck(scripted_model, codex_home, workspace, store_path) as (engine, log, _):
            conversation = await engine.new_conversation("Before")
            await engine.submit(conversation.id, "take your time")
            await log.wait_for(ItemDelta, lambda e: e.conversation_id == conversation.id)
            filler = fill(disk)
            engine.rename(conversation.id, "During")
            steer = await engine.submit(conversation.id, "count for me")
            full = await log.wait_for(Notice, lambda n: "Could not write to" in n.text)
            scripted_model.release()
            during = await log.turn_completed(conversation.id)
            start = await engine.submit(conversation.id, "count for me")
            filler.unlink()
            engine.rename(conversation.id, "After")
            await log.wait_for(Notice, lambda n: "saves again" in n.text)
            assert (await engine.submit(conversation.id, "count for me")).accepted
            after = await log.turn_completed(conversation.id, count=2)
            failed = failures(log)
        async with deck(scripted_model, codex_home, workspace, store_path) as (engine, log, _):
            [info] = engine.conversations()
            unknown = [n.text for n in log.of(Notice) if "result unknown" in n.text]
    lost, reruns = lost_and_reruns(asked_of(scripted_model), ["take your time", "count for me"])
    tally(
        "fault",
        "the store's disk full during a turn, a message typed, then room again",
        lost=lost,
        reruns=reruns,
        crashes=failed,
    )
    for refused in (steer, start):
        assert not refused.accepted
        assert "could not record the message" in refused.message, refused.message
    assert "full" in full.text, full.text
    assert "keeps working" in full.text
    assert (during.status, after.status) == ("completed", "completed")
    assert (lost, reruns) == (0, 0)
    assert (info.title, info.state) == ("After", "idle")
    assert unknown == []


def test_killed_with_the_disk_full_every_message_that_went_out_is_accounted_for(
    isolated_settings: Path, model_url: str, model_requests: Path, tmp_path: Path, tally: Ledger
) -> None:
    local_settings(isolated_settings, model_url, tmp_path)
    with small_disk(tmp_path / "disk") as disk:
        settings = isolated_settings.read_text()
        store = disk / "store.sqlite3"
        isolated_settings.write_text(settings.replace(str(tmp_path / "store.sqlite3"), str(store)))
        env = {"CODEX_DECK_CONFIG": str(isolated_settings)}
        with running([], env) as app:
            app.wait_for("codex online")
            app.type("take your time\r")
            app.wait_for("Thinking this")
            fill(disk)
            shown = len(app.raw)
            app.type("count for me\r")
            app.wait_for("could not record the message", after=shown)
            shown = len(app.raw)
            app.type("\r")  # what was typed is still in the box: Enter tries it again
            app.wait_for("could not record the message", after=shown)
            os.killpg(app.process.pid, signal.SIGKILL)
            app.process.wait(timeout=20)
        with running([], env) as app:
            app.wait_for("codex online")
            app.wait_for("/resend sends it once more")
            app.type("\x11")
            exit_code = app.process.wait(timeout=20)
    lost, reruns = lost_and_reruns(asked_in(model_requests), ["take your time"])
    sent_unrecorded = asked_in(model_requests)["count for me"]
    tally(
        "fault",
        "SIGKILLed with the store's disk full, a message typed meanwhile",
        lost=lost,
        reruns=reruns,
        unapproved=sent_unrecorded,
        crashes=int(exit_code != 0),
    )
    assert sent_unrecorded == 0
    assert (lost, reruns, exit_code) == (0, 0, 0)
