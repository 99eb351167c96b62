"""How the transcript writes a tool's line."""

from __future__ import annotations

from tui.entries import plain_error


def test_a_tool_error_is_one_line_without_codexs_backtrace() -> None:
    message = (
        "tool call error: tool call failed for `deck/crash`\n\nCaused by:\n    Transport closed\n"
        "Stack backtrace:\n   0: <unknown>\n   1: <unknown>\n"
    )
    assert plain_error(message) == (
        "tool call error: tool call failed for `deck/crash` · caused by Transport closed"
    )
