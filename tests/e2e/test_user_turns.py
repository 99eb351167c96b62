"""Turns the user asks for beside messages, on the real binary: /compact, `!command`, /init."""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from engine.conversations.sandbox_leftovers import RESERVED
from engine.engine import Engine
from engine.events import ItemCompleted, ItemDelta, Notice, TurnCompleted
from engine.protocol import CommandExecutionItem, ContextCompactionItem
from engine.scripted_model import ScriptedModel, load_script, run_scripted_model
from engine.scripted_model.scenario import builtin_files
from tests.e2e.conftest import open_engine
from tests.e2e.eventlog import EventLog

pytestmark = pytest.mark.anyio

Deck = tuple[Engine, EventLog]


async def test_compact_shows_the_compaction_and_frees_the_context(deck: Deck) -> None:
    engine, log = deck
    conversation = await engine.new_conversation()
    await engine.submit(conversation.id, "show markdown")
    await log.turn_completed(conversation.id)
    before = engine.session_info(conversation.id).context_left
    assert before is not None

    result = await engine.execute(conversation.id, "/compact")

    assert result.ok, result.message
    compacted = await log.wait_for(
        ItemCompleted, lambda e: isinstance(e.item, ContextCompactionItem)
    )
    done = await log.turn_completed(conversation.id, count=2)
    assert done.status == "completed"
    assert compacted.turn_id == done.turn_id
    after = engine.session_info(conversation.id).context_left
    assert after is not None
    assert after > before, (before, after)


async def test_compact_is_refused_while_a_turn_runs_and_before_anything_was_said(
    deck: Deck, scripted_model: ScriptedModel
) -> None:
    engine, log = deck
    conversation = await engine.new_conversation()
    empty = await engine.execute(conversation.id, "/compact")
    assert not empty.ok
    assert "Nothing to compact yet" in empty.message

    await engine.submit(conversation.id, "take your time")
    await scripted_model.wait_until_holding()
    running = await engine.execute(conversation.id, "/compact")
    assert not running.ok
    assert "A turn is running" in running.message
    assert "Nothing was compacted" in running.message
    scripted_model.release()
    await log.turn_completed(conversation.id)
    assert not [e for e in log.of(ItemCompleted) if isinstance(e.item, ContextCompactionItem)]
    told = [n.text for n in log.of(Notice, conversation.id) if n.level == "error"]
    assert told == [empty.message, running.message]


async def test_a_shell_command_runs_in_the_conversation_and_the_model_sees_its_output(
    deck: Deck, scripted_model: ScriptedModel, workspace: Path
) -> None:
    engine, log = deck
    conversation = await engine.new_conversation()

    result = await engine.execute(conversation.id, "!echo made > made.txt && echo 'it is made'")

    assert result.ok, result.message
    ran = await log.wait_for(ItemCompleted, lambda e: isinstance(e.item, CommandExecutionItem))
    await log.turn_completed(conversation.id)
    assert isinstance(ran.item, CommandExecutionItem)
    assert (workspace / "made.txt").read_text() == "made\n"
    assert ran.item.exit_code == 0
    assert "it is made" in (ran.item.aggregated_output or "")
    assert scripted_model.responses_requests() == [], "no model turn for the user's command"

    await engine.submit(conversation.id, "count for me")
    await log.turn_completed(conversation.id, count=2)
    [request] = scripted_model.responses_requests()
    assert "it is made" in json.dumps(request.input_items), "the model saw the output"


@pytest.fixture
def outside() -> Iterator[Path]:
    """A directory outside the sandbox's writable places (workspace-write lets codex write in
    the workspace and in /tmp)."""
    made = Path(tempfile.mkdtemp(prefix="deck-outside-", dir="/var/tmp"))
    yield made
    shutil.rmtree(made)


async def test_a_shell_command_is_held_by_the_conversations_sandbox(
    deck: Deck, workspace: Path, outside: Path
) -> None:
    engine, log = deck
    conversation = await engine.new_conversation()

    wrote = await engine.execute(conversation.id, f"!echo in > in.txt; echo out > {outside}/o.txt")
    assert wrote.ok, wrote.message
    first = await log.wait_for(ItemCompleted, lambda e: isinstance(e.item, CommandExecutionItem))
    ended = await log.turn_completed(conversation.id)
    assert ended.status == "completed", "a command that fails is not a turn that fails"
    assert (workspace / "in.txt").read_text() == "in\n", "workspace-write: the workspace is"
    assert not (outside / "o.txt").exists(), "workspace-write: outside it is not"
    assert isinstance(first.item, CommandExecutionItem)
    assert first.item.exit_code != 0
    assert "Read-only file system" in (first.item.aggregated_output or "")

    assert (await engine.execute(conversation.id, "/sandbox read-only")).ok
    await engine.execute(conversation.id, "!echo again > again.txt")
    await log.turn_completed(conversation.id, count=2)
    assert not (workspace / "again.txt").exists(), "read-only: nothing is written"

    assert (await engine.execute(conversation.id, "/sandbox danger-full-access")).ok
    await engine.execute(conversation.id, f"!echo out > {outside}/o.txt")
    await log.turn_completed(conversation.id, count=3)
    assert (outside / "o.txt").read_text() == "out\n", "full access: as the user's own shell"


def absent_in_tmp() -> list[Path]:
    """The names codex's sandbox reserves that /tmp does not have now."""
    return [Path("/tmp", name) for name in RESERVED if not Path("/tmp", name).exists()]


def left_behind(workspace: Path, absent: list[Path]) -> list[str]:
    """What is in the workspace, and which of the `absent` are there now."""
    return [path.name for path in workspace.iterdir()] + [str(p) for p in absent if p.exists()]


async def test_a_shell_command_stops_as_a_turn_does_and_what_is_typed_meanwhile_waits(
    deck: Deck, scripted_model: ScriptedModel, workspace: Path
) -> None:
    engine, log = deck
    in_tmp = absent_in_tmp()
    conversation = await engine.new_conversation()
    await engine.execute(conversation.id, "!echo started; sleep 60")
    await log.wait_for(ItemDelta, lambda e: "started" in e.text)
    queued = await engine.submit(conversation.id, "count for me")
    assert queued.how == "queued", queued

    with anyio.fail_after(10):
        assert await engine.stop(conversation.id) == "stopped"
    stopped = await log.turn_completed(conversation.id)
    assert stopped.status == "interrupted"
    assert left_behind(workspace, in_tmp) == [], (
        "the sandbox's mount targets of a killed command are cleared away"
    )
    assert scripted_model.responses_requests() == [], "the queued message waits after a stop"
    assert (await engine.execute(conversation.id, "/continue")).ok
    await log.turn_completed(conversation.id, count=2)
    [request] = scripted_model.responses_requests()
    assert "echo started; sleep 60" in json.dumps(request.input_items), "its part is in history"


async def test_bang_alone_is_refused_and_a_double_bang_sends_text(
    deck: Deck, scripted_model: ScriptedModel
) -> None:
    engine, log = deck
    conversation = await engine.new_conversation()
    empty = await engine.execute(conversation.id, "!   ")
    assert not empty.ok
    assert "needs a command" in empty.message
    assert "Nothing was run" in empty.message

    said = await engine.execute(conversation.id, "!!important: count for me")
    assert said.ok, said.message
    await log.turn_completed(conversation.id)
    assert scripted_model.responses_requests()[-1].user_text == "!important: count for me"
    assert not [e for e in log.of(ItemCompleted) if isinstance(e.item, CommandExecutionItem)]


async def test_init_has_codex_write_agents_md_and_never_over_one_that_is_there(
    deck: Deck, workspace: Path
) -> None:
    engine, log = deck
    conversation = await engine.new_conversation()

    result = await engine.execute(conversation.id, "/init")

    assert result.ok, result.message
    done = await log.turn_completed(conversation.id)
    assert done.status == "completed"
    written = (workspace / "AGENTS.md").read_text()
    assert written.startswith("# Repository Guidelines")

    again = await engine.execute(conversation.id, "/init")
    assert not again.ok
    assert "already there" in again.message
    assert (workspace / "AGENTS.md").read_text() == written
    assert len(log.of(TurnCompleted, conversation.id)) == 1


BACKGROUND = """
[[scenario]]
name = "background"
match = '(?i)\\bin the background\\b'

[[scenario.reply]]
exec = "echo started; sleep 60"

[[scenario.reply]]
text = "It runs on in the background."
"""
"""A command codex leaves running when its turn ends (its output is not done in time)."""


async def test_a_command_running_on_when_codex_ends_leaves_no_mount_targets(
    tmp_path: Path, codex_home: Path, workspace: Path
) -> None:
    in_tmp = absent_in_tmp()
    scenario = tmp_path / "background.toml"
    scenario.write_text(BACKGROUND)
    script = load_script([*builtin_files(), scenario])
    async with (
        run_scripted_model(script) as model,
        open_engine(model, codex_home, workspace) as (engine, log),
    ):
        conversation = await engine.new_conversation()
        await engine.submit(conversation.id, "a command in the background")
        done = await log.turn_completed(conversation.id)
        assert done.status == "completed"
        assert (workspace / ".git").is_dir(), "the command runs on, in its sandbox"
    assert left_behind(workspace, in_tmp) == [], (
        "codex ended, killing the command: its sandbox's mount targets are cleared away"
    )
