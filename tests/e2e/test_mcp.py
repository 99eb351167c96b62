"""MCP on the real binary with a real MCP server (tests/mcp/server.py, the official `mcp` SDK,
run by codex over stdio): codex asks (a form) before running its tool, the tool runs once
allowed here, a form the server asks is answered here and the server receives the answer, a
server that dies mid-call is said, and /mcp lists the servers, how each is and its tools."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest

from engine.conversations.interactions import Reply
from engine.engine import Engine
from engine.events import InteractionRequested, ItemCompleted, McpServerChanged
from engine.protocol import McpToolCallItem
from engine.scripted_model import ScriptedModel
from engine.settings import Settings
from tests.e2e.conftest import open_engine
from tests.e2e.eventlog import EventLog

pytestmark = pytest.mark.anyio

SERVER = Path(__file__).parent.parent / "mcp" / "server.py"
BROKEN = 'mcp_servers.broken.command="/nonexistent/mcp-server"'


def with_mcp(answers: Path) -> Settings:
    base = Settings()
    config = [
        f'mcp_servers.deck.command="{sys.executable}"',
        f'mcp_servers.deck.args=["{SERVER}"]',
        f'mcp_servers.deck.env={{DECK_MCP_ANSWERS="{answers}"}}',
        BROKEN,
    ]
    return replace(base, codex=replace(base.codex, config=[*base.codex.config, *config]))


@pytest.fixture
async def mcp_deck(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path, tmp_path: Path
) -> AsyncIterator[tuple[Engine, EventLog]]:
    settings = with_mcp(tmp_path / "answers.txt")
    async with open_engine(scripted_model, codex_home, workspace, settings) as (engine, log):
        yield engine, log


async def ready(log: EventLog) -> None:
    await log.wait_for(McpServerChanged, lambda e: e.name == "deck" and e.status == "ready")


async def allowed(engine: Engine, log: EventLog, tool: str) -> None:
    """Answer, as the user would on the card, codex's question whether the tool may run."""
    asked = await log.wait_for(
        InteractionRequested, lambda e: f'tool "{tool}"' in (e.interaction.message or "")
    )
    assert asked.interaction.kind == "elicitation"
    assert asked.interaction.server == "deck"
    answered = await engine.respond(asked.interaction.id, Reply({}))
    assert answered.ok, answered.message


def tool_calls(log: EventLog) -> list[McpToolCallItem]:
    return [e.item for e in log.of(ItemCompleted) if isinstance(e.item, McpToolCallItem)]


async def test_the_servers_tool_runs_once_allowed(mcp_deck: tuple[Engine, EventLog]) -> None:
    engine, log = mcp_deck
    conversation = await engine.new_conversation()
    await ready(log)
    await engine.submit(conversation.id, "add with mcp")
    await allowed(engine, log, "add")
    await log.turn_completed(conversation.id)
    [call] = tool_calls(log)
    assert (call.server, call.tool, call.status) == ("deck", "add", "completed")
    assert "2 + 3 = 5" in str(call.result.content if call.result else "")


async def test_a_form_the_server_asks_is_answered_here_and_the_server_gets_it(
    mcp_deck: tuple[Engine, EventLog], tmp_path: Path
) -> None:
    engine, log = mcp_deck
    conversation = await engine.new_conversation()
    await ready(log)
    await engine.submit(conversation.id, "mcp form")
    await allowed(engine, log, "favourite_colour")
    form = await log.wait_for(
        InteractionRequested, lambda e: "favourite colour" in (e.interaction.message or "")
    )
    assert form.interaction.kind == "elicitation"
    assert "colour" in str(form.interaction.requested_schema)

    answered = await engine.respond(form.interaction.id, Reply({"colour": "teal"}))

    assert answered.ok, answered.message
    await log.turn_completed(conversation.id)
    assert (tmp_path / "answers.txt").read_text() == "teal", "the server received the answer"
    [call] = tool_calls(log)
    assert "your favourite colour is teal" in str(call.result.content if call.result else "")


async def test_mcp_lists_the_servers_how_each_is_and_its_tools(
    mcp_deck: tuple[Engine, EventLog],
) -> None:
    engine, log = mcp_deck
    conversation = await engine.new_conversation()
    await ready(log)
    await log.wait_for(McpServerChanged, lambda e: e.name == "broken" and e.status == "failed")

    listed = await engine.execute(conversation.id, "/mcp")

    assert listed.ok, listed.message
    lines = listed.message.splitlines()
    assert lines[0] == "MCP servers (codex's config):"
    [deck] = [line for line in lines if line.startswith("  deck  ")]
    assert deck == "  deck  running · 3 tools: add, crash, favourite_colour"
    [broken] = [line for line in lines if line.startswith("  broken  ")]
    assert broken.startswith("  broken  failed: ")
    assert "No such file or directory" in broken


async def test_a_server_that_crashes_mid_call_is_said_and_the_turn_goes_on(
    mcp_deck: tuple[Engine, EventLog],
) -> None:
    engine, log = mcp_deck
    conversation = await engine.new_conversation()
    await ready(log)
    await engine.submit(conversation.id, "crash the mcp server")
    await allowed(engine, log, "crash")
    done = await log.turn_completed(conversation.id)

    assert done.status == "completed"
    [call] = tool_calls(log)
    assert (call.tool, call.status) == ("crash", "failed")
    assert call.error is not None
    assert call.error.message
    assert "Transport closed" in call.error.message
