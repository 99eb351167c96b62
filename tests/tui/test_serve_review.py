"""The review from a browser (`codex-deck serve`), by keyboard as in a terminal: a change of two
hunks waiting, alt+i lists it, Enter goes to its card, r reviews it hunk by hunk, space marks
the second, Enter, a reason, Enter: the workspace holds exactly what was kept; /rules answers."""

from __future__ import annotations

import json
from pathlib import Path

import anyio

from engine.transport.websocket import WebSocketTransport, connect
from tests.conftest import local_settings
from tests.tui.test_cli import drain, free_port, serving, shown

STORY = "".join(f"line {n}\n" for n in range(1, 15))


async def typed(browser: WebSocketTransport, keys: str) -> None:
    await browser.send.send(json.dumps(["stdin", keys]).encode())


def test_a_change_is_reviewed_hunk_by_hunk_from_a_browser(
    isolated_settings: Path, model_url: str, tmp_path: Path
) -> None:
    workspace = local_settings(isolated_settings, model_url, tmp_path)
    (workspace / "story.txt").write_text(STORY)
    port = free_port()
    with serving(port, "--config", str(isolated_settings), "--cwd", str(workspace)) as (_, link):
        secret = link.split("?secret=")[1]
        url = f"ws://127.0.0.1:{port}/ws?width=120&height=40&secret={secret}"

        async def review_in_the_browser() -> None:
            browser = await connect(url)
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(browser.run)
                await shown(browser, b"codex online")
                await typed(browser, "/approvals untrusted\r")
                await shown(browser, b"Approvals: untrusted")
                await typed(browser, "edit two places\r")
                await shown(browser, b"Apply these changes?")
                await typed(browser, "\x1bi")  # alt+i
                await shown(browser, b"waits for your answer")
                # Enter goes to the request's card (an esc typed just before ctrl+g would be
                # read with it as alt+ctrl+g, once the two come in one read).
                await typed(browser, "\r")
                await shown(browser, b"Review hunks")
                await typed(browser, "r")
                await shown(browser, b"Mark those to take back")
                await typed(browser, "\x1b[B")  # down
                await typed(browser, " ")
                await shown(browser, b"[take back]")
                await typed(browser, "\r")
                await shown(browser, b"Why?")
                await typed(browser, "keep line 10\r")
                # Told in the turn, or with the next message if the turn ended first.
                await shown(browser, b"Took back hunks in 1 file; codex is told")
                await typed(browser, "/rules\r")
                await shown(browser, b"Saved rules")
                tasks.start_soon(drain, browser)
                tasks.cancel_scope.cancel()

        anyio.run(review_in_the_browser)
    assert (workspace / "story.txt").read_bytes() == STORY.replace(
        "line 2\n", "LINE TWO\n"
    ).encode()
