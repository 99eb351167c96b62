"""What codex tells beside a turn's items, on the real binary: an MCP server that fails to
start is said once, plainly."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from engine.events import Notice
from engine.scripted_model import ScriptedModel
from engine.settings import Settings
from tests.e2e.conftest import open_engine

pytestmark = pytest.mark.anyio

BROKEN = 'mcp_servers.broken.command="/nonexistent/mcp-server"'


async def test_an_mcp_server_that_fails_to_start_is_said_once(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path
) -> None:
    base = Settings()
    settings = replace(base, codex=replace(base.codex, config=[*base.codex.config, BROKEN]))
    async with open_engine(scripted_model, codex_home, workspace, settings) as (engine, log):
        first = await engine.new_conversation()
        said = await log.wait_for(Notice, lambda n: "MCP server 'broken'" in n.text)
        second = await engine.new_conversation()
        await engine.submit(second.id, "count for me")
        await log.turn_completed(second.id)
    assert said.level == "warning"
    assert "failed to start" in said.text
    assert first.id != second.id
    assert len([n for n in log.of(Notice) if "MCP server 'broken'" in n.text]) == 1
