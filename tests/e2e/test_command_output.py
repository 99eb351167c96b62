"""A command's output, as much as codex passes on, is kept in a private file outside the
screen's bounded copy."""

from __future__ import annotations

import stat
import tempfile
from pathlib import Path

import pytest

from engine.events import ItemCompleted
from engine.protocol import CommandExecutionItem
from engine.records.outputs import CUT_NOTE, CommandOutputs
from engine.scripted_model import ScriptedModel
from engine.settings import LimitsSettings, Settings
from tests.e2e.conftest import open_engine

pytestmark = pytest.mark.anyio

FLOOD_BYTES = 10_000_000 + 10_000_000 // 100
"""`head -c 10000000 … | fold -w 100`: ten million x's and a newline after every hundred.
Codex drops output deltas when a command prints faster than they are sent: 8.1 to 10.1 MB
of this came as deltas in runs on one machine, none to 2.9 MB on a faster one. Its
completed item carries the first MiB."""


async def test_ten_megabytes_of_output_are_kept_in_a_private_file_as_far_as_codex_passes_them_on(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path
) -> None:
    async with open_engine(scripted_model, codex_home, workspace) as (engine, log):
        conversation = await engine.new_conversation()
        await engine.submit(conversation.id, "flood the output")
        done = await log.wait_for(ItemCompleted, lambda e: isinstance(e.item, CommandExecutionItem))
        assert isinstance(done.item, CommandExecutionItem)
        aggregated = len(done.item.aggregated_output or "")
        assert aggregated < FLOOD_BYTES / 5
        kept = engine.command_output(conversation.id, done.item.id)
        assert kept.path is not None
        assert kept.problem is None
        data = kept.path.read_bytes()
        assert kept.size == len(data)
        # The deltas codex passed on, or its completed item's output when that was more.
        assert kept.size >= len((done.item.aggregated_output or "").encode())
        # The login shell codex runs may print a line of its own (a pyenv warning, say); where
        # codex dropped deltas, a line is cut: what is kept is its output, and only that.
        flood = data.count(b"x" * 100 + b"\n") * 101
        assert flood <= FLOOD_BYTES
        assert len(data.replace(b"x", b"").replace(b"\n", b"")) < 1024
        assert stat.S_IMODE(kept.path.stat().st_mode) == 0o600
        assert stat.S_IMODE(kept.path.parent.stat().st_mode) == 0o700
        await log.turn_completed(conversation.id)
        said = await engine.execute(conversation.id, "/output")
        assert said.ok
        assert said.message == (
            f"The latest command's whole output ({kept.size:,} bytes) is in {kept.path}"
        )
    assert not kept.path.exists()
    assert not kept.path.parent.exists()


async def test_output_past_the_limit_is_cut_with_a_note(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path
) -> None:
    limit = 1024 * 1024
    base = Settings(limits=LimitsSettings(command_output_bytes=limit))
    async with open_engine(scripted_model, codex_home, workspace, base) as (engine, log):
        conversation = await engine.new_conversation()
        await engine.submit(conversation.id, "flood the output")
        done = await log.wait_for(ItemCompleted, lambda e: isinstance(e.item, CommandExecutionItem))
        kept = engine.command_output(conversation.id, done.item.id)
        assert kept.path is not None
        text = kept.path.read_bytes()
        note = CUT_NOTE.format(limit=limit).encode()
        assert text.endswith(note)
        assert len(text) == limit + len(note)


def completed_command(output: str) -> ItemCompleted:
    item = CommandExecutionItem(
        id="call_1", command="flood", cwd="/", status="completed", aggregated_output=output
    )
    return ItemCompleted(seq=1, at=0.0, conversation_id="c", turn_id="t", item=item, status="ok")


@pytest.mark.parametrize(
    ("streamed", "completed"),
    [
        ("line 1\n", "line 1\nline 2\n"),  # codex dropped deltas: its item has more
        ("line 1\nline 2\n", "line 1\n"),  # its item carries the first MiB only
    ],
)
def test_the_longer_of_the_deltas_and_the_completed_items_output_is_kept(
    streamed: str, completed: str
) -> None:
    outputs = CommandOutputs(limit=1 << 20)
    outputs.add(("c", "call_1"), streamed)
    outputs.event(completed_command(completed))
    kept = outputs.kept("c", "call_1")
    assert kept.path is not None
    assert kept.path.read_text() == "line 1\nline 2\n"
    assert kept.size == len("line 1\nline 2\n")
    outputs.close()


def test_output_that_comes_after_the_command_completed_follows_on_in_the_same_file() -> None:
    outputs = CommandOutputs(limit=1 << 20)
    outputs.add(("c", "call_1"), "line 1\nline 2\n")
    outputs.event(completed_command("line 1\n"))
    outputs.add(("c", "call_1"), "line 3\n")
    kept = outputs.kept("c", "call_1")
    assert kept.path is not None
    assert kept.path.read_text() == "line 1\nline 2\nline 3\n"
    assert kept.size == len("line 1\nline 2\nline 3\n")
    outputs.close()


def test_a_spool_that_cannot_be_written_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    not_a_directory = tmp_path / "file"
    not_a_directory.write_text("")
    monkeypatch.setattr(tempfile, "tempdir", str(not_a_directory))
    outputs = CommandOutputs(limit=1 << 20)
    outputs.add(("c", "call_1"), "hello\n")
    kept = outputs.kept("c", "call_1")
    assert kept.path is None
    assert kept.problem == "Not a directory"
    assert outputs.kept("c", "never").problem == "the command printed nothing"
    outputs.close()
