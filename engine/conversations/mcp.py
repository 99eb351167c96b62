"""/mcp: the MCP servers codex has (its config's `mcp_servers`), how each is and its tools."""

from __future__ import annotations

from engine import protocol as wire
from engine.conversations.conversation import Conversation
from engine.conversations.core import Core
from engine.errors import ConnectionClosed, RpcError
from engine.events import McpServerChanged
from engine.results import CommandResult

TOOLS_SHOWN = 12
STATES = {
    "connected": "running",
    "starting": "starting",
    "notStarted": "not started",
    "authenticationRequired": "needs a sign-in",
    "failed": "failed",
    "cancelled": "cancelled",
    "disabled": "turned off",
    "ready": "running",
}


class McpServers:
    def __init__(self, core: Core) -> None:
        self._core = core

    async def describe(self, conversation: Conversation) -> CommandResult:
        notices = self._core.notices
        try:
            servers = await self._list(conversation)
        except (RpcError, ConnectionClosed) as error:
            return notices.failed(conversation.id, f"codex could not list its MCP servers: {error}")
        started = self._core.router.reports.mcp_servers
        names = sorted({server.name for server in servers} | set(started))
        if not names:
            return notices.told(
                conversation,
                "codex has no MCP servers; they are set in codex's config ([mcp_servers.NAME]).",
            )
        by_name = {server.name: server for server in servers}
        lines = ["MCP servers (codex's config):"]
        for name in names:
            lines.append(f"  {name}  {self._line(by_name.get(name), started.get(name))}")
        return notices.told(conversation, "\n".join(lines))

    async def _list(self, conversation: Conversation) -> list[wire.McpServerState]:
        found: list[wire.McpServerState] = []
        cursor: str | None = None
        while True:
            params = wire.McpServerStatusListParams(thread_id=conversation.thread_id, cursor=cursor)
            page = await self._core.server.mcp_server_status(params)
            found += page.data
            cursor = page.next_cursor
            if not cursor:
                return found

    def _line(self, server: wire.McpServerState | None, started: McpServerChanged | None) -> str:
        status = started.status if started is not None else None
        error = started.error if started is not None else None
        if server is not None and server.runtime_status:
            status = server.runtime_status
        said = STATES.get(status or "", status or "state not known")
        if status == "failed" and error:
            said += f": {error}"
        if server is None:
            return said
        if server.tools_error:
            return f"{said} · its tools could not be listed: {server.tools_error}"
        tools = sorted(server.tools)
        listed = ", ".join(tools[:TOOLS_SHOWN]) + (" …" if len(tools) > TOOLS_SHOWN else "")
        return f"{said} · {len(tools)} tool{'s' if len(tools) != 1 else ''}" + (
            f": {listed}" if tools else ""
        )
