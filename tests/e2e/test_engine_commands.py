"""Commands through `Engine.execute` on the real binary: /stop, /reset, /session, answers."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.conversations.interactions import Approve, Reply
from engine.engine import Engine
from engine.events import (
    ConversationUpdated,
    InteractionRequested,
    InteractionResolved,
    ItemCompleted,
    ItemDelta,
    Notice,
    StopRequested,
)
from engine.protocol import AgentMessageItem, CommandExecutionItem, FileChangeItem
from engine.scripted_model import ScriptedModel
from engine.settings import CodexSettings, Settings
from tests.e2e.conftest import open_engine
from tests.e2e.eventlog import EventLog
from tests.reliability.report import Ledger

pytestmark = pytest.mark.anyio

Deck = tuple[Engine, EventLog]


async def test_stop_while_streaming_interrupts_the_turn(
    deck: Deck, scripted_model: ScriptedModel
) -> None:
    engine, log = deck
    conversation = await engine.new_conversation()
    await engine.submit(conversation.id, "take your time")
    await scripted_model.wait_until_holding()
    await log.wait_for(ItemDelta, lambda e: e.kind == "agent_message")
    result = await engine.execute(conversation.id, "/stop")
    assert (result.ok, result.message) == (True, "stopped")
    done = await log.turn_completed(conversation.id)
    assert done.status == "interrupted"
    assert engine.conversations()[0].state == "idle"
    stop = await log.wait_for(StopRequested)
    assert (stop.turn_id, stop.outcome) == (done.turn_id, "stopped")
    [closed] = [e for e in log.of(ItemCompleted, conversation.id) if e.closed_by_turn]
    assert isinstance(closed.item, AgentMessageItem)
    assert (closed.status, closed.turn_id) == ("interrupted", done.turn_id)


async def test_stop_while_an_approval_waits_expires_it_and_runs_nothing(
    deck: Deck, workspace: Path, tally: Ledger
) -> None:
    engine, log = deck
    conversation = await engine.new_conversation()
    await engine.submit(conversation.id, "approval")
    asked = await log.wait_for(InteractionRequested)
    assert engine.conversations()[0].state == "waiting"
    result = await engine.execute(conversation.id, "/cancel")
    assert result.message == "stopped"
    done = await log.turn_completed(conversation.id)
    assert done.status == "interrupted"
    resolved = await log.wait_for(InteractionResolved)
    assert (resolved.interaction_id, resolved.outcome, resolved.by) == (
        asked.interaction.id,
        "expired",
        "codex",
    )
    tally(
        "security",
        "nothing approved without the user's answer: /cancel, decline, engine closing",
        unapproved=int((workspace / "out.txt").exists()),
    )
    assert not (workspace / "out.txt").exists()
    late = await engine.respond(asked.interaction.id, Approve())
    assert (late.ok, late.message) == (False, f"{asked.interaction.id} is expired")


async def test_stop_when_idle_says_there_is_nothing_to_stop(deck: Deck) -> None:
    engine, log = deck
    conversation = await engine.new_conversation()
    result = await engine.execute(conversation.id, "/stop")
    assert result.message == "nothing to stop"
    notice = await log.wait_for(Notice, lambda n: n.conversation_id == conversation.id)
    assert notice.text == "Nothing to stop: no turn is running."


async def test_reset_starts_a_new_generation_and_keeps_the_old_thread(
    deck: Deck, scripted_model: ScriptedModel
) -> None:
    engine, log = deck
    conversation = await engine.new_conversation()
    await engine.submit(conversation.id, "show markdown")
    await log.turn_completed(conversation.id)
    old_thread = engine.conversations()[0].thread_id
    assert old_thread is not None

    await engine.submit(conversation.id, "take your time")
    await scripted_model.wait_until_holding()
    await engine.submit(conversation.id, "queued one", "queue")
    await engine.submit(conversation.id, "queued two", "queue")
    result = await engine.execute(conversation.id, "/reset")
    assert result.ok
    assert result.message.endswith("Dropped 2 queued message(s).")
    after = engine.conversations()[0]
    assert after.id == conversation.id
    assert after.generation == 1
    assert after.thread_id not in (None, old_thread)
    assert after.queued == 0
    assert after.state == "idle"
    old = await engine.read_thread(old_thread)
    assert [turn.status for turn in old.turns] == ["completed", "interrupted"]
    await engine.submit(conversation.id, "count for me")
    await log.turn_completed(conversation.id, count=3)
    assert scripted_model.responses_requests()[-1].user_texts() == ["count for me"]


async def test_session_describes_the_conversation(deck: Deck, workspace: Path) -> None:
    engine, log = deck
    conversation = await engine.new_conversation("session check")
    await engine.submit(conversation.id, "show markdown")
    await log.turn_completed(conversation.id)
    info = engine.session_info(conversation.id)
    assert info.conversation_id == conversation.id
    assert info.thread_id == engine.conversations()[0].thread_id
    assert info.generation == 0
    assert info.model == "codex-deck-scripted"
    assert info.provider == "codex-deck-offline"
    assert info.cwd == str(workspace)
    assert info.sandbox == "workspace-write"
    assert info.approval_policy == "on-request"
    assert info.total_tokens is not None
    assert info.total_tokens > 0
    result = await engine.execute(conversation.id, "/session")
    assert f"conversation      {conversation.id} (session check)" in result.message
    assert "model             codex-deck-scripted via codex-deck-offline" in result.message


async def test_bad_commands_name_the_command_and_send_nothing(
    deck: Deck, scripted_model: ScriptedModel
) -> None:
    engine, _ = deck
    conversation = await engine.new_conversation()
    unknown = await engine.execute(conversation.id, "/frobnicate now")
    assert (unknown.ok, unknown.message) == (
        False,
        "unknown command /frobnicate; /help lists the commands",
    )
    bad = await engine.execute(conversation.id, "/stop everything")
    assert bad.message == "/stop takes no arguments; usage: /stop"
    missing = await engine.execute(conversation.id, "/approve")
    assert missing.message == (
        "/approve needs an interaction id; usage: /approve ID [session|rule|network]"
    )
    help_text = await engine.execute(conversation.id, "/help")
    assert "/respond ID TEXT|JSON" in help_text.message
    assert scripted_model.responses_requests() == []


async def test_answers_are_checked_before_anything_is_sent(deck: Deck) -> None:
    engine, log = deck
    first = await engine.new_conversation()
    other = await engine.new_conversation()
    await engine.submit(first.id, "approval")
    asked = (await log.wait_for(InteractionRequested)).interaction
    assert asked.kind == "command"
    assert asked.reason == "Allow writing out.txt outside the sandbox?"
    assert asked.command is not None
    assert "echo hi-from-exec > out.txt" in asked.command

    unknown = await engine.execute(first.id, "/approve zzzz")
    assert unknown.message == "there is no interaction 'zzzz'"
    foreign = await engine.execute(other.id, f"/approve {asked.id}")
    assert foreign.message == f"{asked.id} belongs to another conversation"
    wrong_kind = await engine.execute(first.id, f"/respond {asked.id} yes please")
    assert wrong_kind.message == (
        f"{asked.id}: an approval takes /approve [session], /decline or /cancel"
    )
    assert engine.pending_interactions(first.id)[0].id == asked.id

    accepted = await engine.execute(first.id, f"/approve {asked.id[:3]}")
    assert accepted.message == f"{asked.id}: accepted"
    done = await log.turn_completed(first.id)
    assert done.status == "completed"
    again = await engine.respond(asked.id, Reply("late"))
    assert again.message == f"{asked.id} is already answered"
    [command] = [
        e.item for e in log.of(ItemCompleted, first.id) if isinstance(e.item, CommandExecutionItem)
    ]
    assert command.status == "completed"
    states = [e.info.state for e in log.of(ConversationUpdated, first.id)]
    assert "waiting" in states


async def test_a_file_change_approval_carries_its_diff(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path
) -> None:
    settings = Settings(codex=CodexSettings(approval_policy="untrusted"))
    async with open_engine(scripted_model, codex_home, workspace, settings) as (engine, log):
        conversation = await engine.new_conversation()
        await engine.submit(conversation.id, "create a file")
        asked = (await log.wait_for(InteractionRequested)).interaction
        assert asked.kind == "file_change"
        [change] = asked.changes
        assert change.path == str(workspace / "hello.txt")
        assert change.diff == "hello from apply_patch\n"
        assert not (workspace / "hello.txt").exists()
        result = await engine.execute(conversation.id, f"/approve {asked.id} session")
        assert result.message == f"{asked.id}: accepted for session"
        assert (await log.turn_completed(conversation.id)).status == "completed"
    assert (workspace / "hello.txt").read_text() == "hello from apply_patch\n"


async def test_decline_keeps_the_file_unwritten(deck: Deck, workspace: Path, tally: Ledger) -> None:
    engine, log = deck
    conversation = await engine.new_conversation()
    await engine.submit(conversation.id, "approval")
    asked = (await log.wait_for(InteractionRequested)).interaction
    declined = await engine.execute(conversation.id, f"/decline {asked.id}")
    assert declined.message == f"{asked.id}: declined"
    done = await log.turn_completed(conversation.id)
    assert done.status == "completed"
    [command] = [
        e.item
        for e in log.of(ItemCompleted, conversation.id)
        if isinstance(e.item, CommandExecutionItem | FileChangeItem)
    ]
    assert command.status == "declined"
    tally(
        "security",
        "nothing approved without the user's answer: /cancel, decline, engine closing",
        unapproved=int((workspace / "out.txt").exists()),
    )
    assert not (workspace / "out.txt").exists()


async def test_closing_the_engine_declines_what_waits(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path, tally: Ledger
) -> None:
    async with open_engine(scripted_model, codex_home, workspace) as (engine, log):
        conversation = await engine.new_conversation()
        await engine.submit(conversation.id, "approval")
        asked = (await log.wait_for(InteractionRequested)).interaction
    resolved = [
        e
        for e in engine.trace(conversation.id, asked.turn_id)
        if isinstance(e, InteractionResolved)
    ]
    assert [(r.interaction_id, r.outcome, r.detail, r.by) for r in resolved] == [
        (asked.id, "expired", "codex-deck is closing", "codex-deck")
    ]
    tally(
        "security",
        "nothing approved without the user's answer: /cancel, decline, engine closing",
        unapproved=int((workspace / "out.txt").exists()),
    )
    assert not (workspace / "out.txt").exists()


async def test_rename_and_archive(deck: Deck) -> None:
    engine, log = deck
    conversation = await engine.new_conversation("first title")
    result = await engine.execute(conversation.id, "/rename a better title")
    assert result.message == "Renamed to 'a better title'."
    assert engine.conversations()[0].title == "a better title"
    archived = await engine.execute(conversation.id, "/archive")
    assert archived.ok
    assert engine.conversations()[0].archived
    update = await log.wait_for(ConversationUpdated, lambda e: e.info.archived)
    assert update.info.title == "a better title"


async def test_new_on_a_host_with_no_hosts_says_where_conversations_start(deck: Deck) -> None:
    engine, _ = deck
    conversation = await engine.new_conversation()
    result = await engine.execute(conversation.id, "/new @buildbox fix it")
    assert not result.ok
    assert result.message.startswith("No host 'buildbox' here: conversations start on this codex")
    assert [info.id for info in engine.conversations()] == [conversation.id]
