"""What the status bar says of MCP servers codex is starting."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult

from tui.widgets.status_bar import StatusBar

pytestmark = pytest.mark.anyio


class Bar(App[None]):
    def compose(self) -> ComposeResult:
        yield StatusBar()


async def test_a_starting_mcp_server_is_said_until_it_runs_or_fails() -> None:
    app = Bar()
    async with app.run_test() as pilot:
        bar = app.query_one(StatusBar)
        bar.mcp_server("deck", "starting")
        bar.mcp_server("docs", "starting")
        await pilot.pause()
        assert "starting MCP: deck, docs" in str(bar.render())
        bar.mcp_server("deck", "ready")
        bar.mcp_server("docs", "failed")
        await pilot.pause()
        assert "MCP" not in str(bar.render())
