"""The disk under the store fills up (a 2 MiB tmpfs, filled to the last byte): codex-deck
says it cannot save, the turn runs on and ends, nothing is sent twice, and once there is
room again it saves again, so a restart finds what happened meanwhile."""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.events import Notice
from engine.scripted_model import ScriptedModel
from tests.e2e.test_recovery import deck
from tests.reliability.report import Ledger, asked_of, lost_and_reruns
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
        async with deck(scripted_model, codex_home, workspace, store_path) as (engine, log, store):
            conversation = await engine.new_conversation("Before")
            await store.flush()
            filler = fill(disk)
            engine.rename(conversation.id, "During")
            await engine.submit(conversation.id, "count for me")
            during = await log.turn_completed(conversation.id)
            full = await log.wait_for(Notice, lambda n: "Could not write to" in n.text)
            filler.unlink()
            engine.rename(conversation.id, "After")
            await log.wait_for(Notice, lambda n: "saves again" in n.text)
            failed = failures(log)
        async with deck(scripted_model, codex_home, workspace, store_path) as (engine, _, _):
            [info] = engine.conversations()
    lost, reruns = lost_and_reruns(asked_of(scripted_model), ["count for me"])
    tally(
        "fault", "the store's disk full, then room again", lost=lost, reruns=reruns, crashes=failed
    )
    assert during.status == "completed"
    assert "full" in full.text, full.text
    assert "keeps working" in full.text
    assert (info.title, info.state) == ("After", "idle")
