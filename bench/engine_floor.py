"""The floor for start → ready to send: the least a Textual app on codex-deck's engine can
do. It starts codex first thing (as `codex-deck` does), paints a minimal screen (a Static
and a Footer), then imports the engine, opens it on that codex and starts a conversation,
and shows "engine up". No main screen, no store, no demo tour.

Run by bench.codex_tui in a pty: `python -m bench.engine_floor MODEL_URL WORKSPACE` with
CODEX_HOME set.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from contextlib import AsyncExitStack
from pathlib import Path

from engine.settings import Settings
from engine.transport.binary import find_codex
from engine.transport.launch import launch_for
from engine.transport.offline import offline_settings
from engine.transport.process import spawn


class _Model:
    def __init__(self, base_url: str) -> None:
        self.base_url = base_url


def main() -> None:
    url, workspace = sys.argv[1], Path(sys.argv[2])
    settings = offline_settings(Settings(), _Model(url), Path(os.environ["CODEX_HOME"]))
    early = spawn(launch_for(settings, find_codex(None).path, workspace))

    from textual.app import App, ComposeResult
    from textual.widgets import Footer, Static

    class Floor(App[None]):
        def compose(self) -> ComposeResult:
            yield Static("starting", id="state")
            yield Footer()

        def on_mount(self) -> None:
            self._opened = AsyncExitStack()
            asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, self.exit)
            self.call_after_refresh(self.run_worker, self._engine_up())

        async def _engine_up(self) -> None:
            from engine.engine import Engine

            engine = await self._opened.enter_async_context(
                Engine.open(settings, cwd=workspace, early=early)
            )
            await engine.new_conversation()
            self.query_one("#state", Static).update("engine up")

        async def on_unmount(self) -> None:
            await self._opened.aclose()

    Floor().run()


if __name__ == "__main__":
    main()
