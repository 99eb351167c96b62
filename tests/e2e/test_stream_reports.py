"""What codex tells beside a turn's items, on the real binary: an MCP server that fails to
start is said once, plainly; a model provider whose port refuses connections is named, once,
instead of codex's endless "waiting for network"."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from engine.engine import Engine
from engine.events import Notice
from engine.scripted_model import ScriptedModel
from engine.settings import Settings
from engine.transport.offline import offline_settings
from tests.e2e.conftest import open_engine
from tests.e2e.eventlog import recording
from tests.e2e.test_attach import free_port

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


@dataclass(frozen=True)
class Gone:
    """A model provider at a port nothing listens on."""

    base_url: str


async def test_a_provider_that_refuses_connections_is_named(
    codex_home: Path, workspace: Path
) -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    settings = offline_settings(Settings(), Gone(url), codex_home)
    async with Engine.open(settings, cwd=workspace) as engine, recording(engine) as log:
        conversation = await engine.new_conversation()
        await engine.submit(conversation.id, "count for me")
        named = await log.wait_for(Notice, lambda n: "cannot be reached" in n.text)
        assert f"connection refused at {url}" in named.text
        assert named.level == "error"
        assert await engine.stop(conversation.id) == "stopped"
    retried = [n for n in log.of(Notice) if n.text.startswith("Reconnecting")]
    assert len(retried) == 1, retried
    assert len([n for n in log.of(Notice) if "cannot be reached" in n.text]) == 1
