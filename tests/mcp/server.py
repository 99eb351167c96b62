"""A small MCP server for the tests, written with the official `mcp` SDK and run by codex over
stdio: a tool that adds two numbers, one that stops the server mid-call, and one that asks the
user a form (an elicitation) and writes what it received to the file `DECK_MCP_ANSWERS`
names."""

from __future__ import annotations

import os

import anyio
from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("deck-test")


@server.tool()
def add(a: int, b: int) -> str:
    """Add two numbers."""
    return f"{a} + {b} = {a + b}"


@server.tool()
def crash() -> str:
    """Stop the server in the middle of the call, as a server that crashes does."""
    os._exit(3)


COLOUR_FORM = {
    "type": "object",
    "properties": {"colour": {"type": "string", "description": "Your favourite colour"}},
    "required": ["colour"],
}
"""The form, as the MCP spec writes a requested schema. (The SDK's own `ctx.elicit` renders a
model with `title` keys, which codex answers `cancel` to without asking anyone.)"""


@server.tool()
async def favourite_colour(ctx: Context) -> str:
    """Ask the user their favourite colour."""
    session = ctx.request_context.session
    result = await session.elicit_form(
        message="What is your favourite colour?",
        requested_schema=COLOUR_FORM,
        related_request_id=ctx.request_id,
    )
    content = result.content or {}
    received = content.get("colour") if result.action == "accept" else None
    answers = os.environ.get("DECK_MCP_ANSWERS")
    if answers:
        await anyio.Path(answers).write_text(str(received or f"({result.action})"))
    if received is None:
        return f"no colour ({result.action})"
    return f"your favourite colour is {received}"


if __name__ == "__main__":
    server.run()
