"""/export writes the conversation as Markdown: messages, commands with output, file changes
as diffs, side chats marked as such, and no secret."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from engine.conversations.interactions import Approve, Decline
from engine.engine import Engine
from engine.events import InteractionRequested, SideChatAnswered
from tests.e2e.eventlog import EventLog

pytestmark = pytest.mark.anyio

Deck = tuple[Engine, EventLog]
KEY = "sk-proj-abcdefghijklmnopqrstuvwxyz123456"
CONFIGURED = "local-gateway-token-7f3a9c"
"""A key set for codex in the environment, in no known key shape."""


async def test_the_markdown_has_every_kind_of_item_and_no_secret(
    deck: Deck, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine, log = deck
    monkeypatch.setenv("CODEX_API_KEY", CONFIGURED)
    conversation = await engine.new_conversation("Export me")
    for count, text in enumerate(
        ["run a command", "create a file", f"count for me, my key is {KEY}"], 1
    ):
        await engine.submit(conversation.id, text)
        await log.turn_completed(conversation.id, count=count)
    await engine.submit(conversation.id, f"do it all, the token is {CONFIGURED}")
    asked = await log.wait_for(InteractionRequested)
    await engine.respond(asked.interaction.id, Approve())
    await log.turn_completed(conversation.id, count=4)
    await engine.ask_aside(conversation.id, "what did you do?")
    await log.wait_for(SideChatAnswered)

    result = await engine.execute(conversation.id, "/export notes/out.md")
    assert result.ok, result.message
    target = workspace / "notes" / "out.md"
    assert result.message.startswith(f"Exported to {target}")
    assert "The demo's workspace is thrown away when codex-deck closes" in result.message
    assert target.stat().st_mode & 0o777 == 0o600, "the user's alone"
    text = await anyio.Path(target).read_text()
    assert text.startswith("# Export me\n")
    assert "## You\n\nrun a command" in text
    assert "## Codex" in text
    assert "**Ran** `" in text
    assert "```diff" in text
    assert "**Side chat s1** — not part of the conversation" in text
    assert "> **Q:** what did you do?" in text
    assert KEY not in text
    assert "my key is [redacted]" in text
    assert CONFIGURED not in text
    assert "the token is [redacted]" in text
    assert f"**Request {asked.interaction.id}** (command): " in text
    assert f"**Request {asked.interaction.id}**: accepted" in text
    assert "<details><summary>Reasoning</summary>" in text


async def test_an_export_that_cannot_be_written_says_why(deck: Deck, tmp_path: Path) -> None:
    engine, _ = deck
    conversation = await engine.new_conversation()
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    result = await engine.execute(conversation.id, f"/export {blocker}/inside.md")
    assert not result.ok
    assert result.message.startswith(f"Could not write {blocker}/inside.md: ")
    assert blocker.read_text() == ""


async def test_an_export_keeps_diffs_and_declines_and_writes_over_nothing_unasked(
    deck: Deck, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine, log = deck
    monkeypatch.setenv("HOME", str(tmp_path))
    conversation = await engine.new_conversation("Careful")
    await engine.submit(conversation.id, "create a file")
    await log.turn_completed(conversation.id)
    await engine.submit(conversation.id, "approval")
    asked = await log.wait_for(InteractionRequested)
    await engine.respond(asked.interaction.id, Decline())
    await log.turn_completed(conversation.id, count=2)

    written = await engine.execute(conversation.id, "/export ~/out.md")
    target = tmp_path / "out.md"
    assert written.ok, written.message
    assert written.message.startswith(f"Exported to {target}"), "~ is the home, and said"
    text = await anyio.Path(target).read_text()
    assert "+hello from apply_patch" in text, "a new file's lines keep their +"
    assert "**Declined** `" in text
    assert "(not run)" in text

    target.write_text("mine\n")
    again = await engine.execute(conversation.id, "/export ~/out.md")
    assert not again.ok
    assert "is there already; nothing was written" in again.message
    assert f"`/export --replace {target}` writes over it" in again.message
    assert target.read_text() == "mine\n"
    replaced = await engine.execute(conversation.id, "/export --replace ~/out.md")
    assert replaced.ok, replaced.message
    assert (await anyio.Path(target).read_text()).startswith("# Careful\n")
    assert target.stat().st_mode & 0o777 == 0o600
