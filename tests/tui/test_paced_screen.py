"""While the screen changes without pause, frames take at most their share of the time."""

from __future__ import annotations

import itertools
import time

import anyio
import pytest
from textual.app import App, ComposeResult
from textual.widget import Widget

from tui.screens import paced
from tui.screens.paced import PacedScreen

pytestmark = pytest.mark.anyio

FRAMES = 8
DRAW_SECONDS = 0.02
SHARE = 1 / 5


class Ticker(Widget):
    """Changes all the time; each drawing of it takes DRAW_SECONDS of the event loop."""

    DEFAULT_CSS = "Ticker { width: 20; height: 1; }"

    def __init__(self) -> None:
        super().__init__()
        self.drawn: list[float] = []
        """When each drawing began."""
        self.enough = anyio.Event()

    def on_mount(self) -> None:
        self.set_interval(0.001, self.refresh)

    def render(self) -> str:
        began = time.perf_counter()
        while time.perf_counter() - began < DRAW_SECONDS:
            pass  # the cost of a heavy frame
        self.drawn.append(began)
        if len(self.drawn) == FRAMES:
            self.enough.set()
        return f"frame {len(self.drawn)}"


class TickerScreen(PacedScreen):
    def compose(self) -> ComposeResult:
        yield Ticker()


class TickerApp(App[None]):
    def on_mount(self) -> None:
        self.push_screen(TickerScreen())


async def test_a_screen_that_keeps_changing_paints_no_more_than_its_share_of_the_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(paced, "FRAME_SHARE", SHARE)
    app = TickerApp()
    async with app.run_test():
        ticker = app.screen.query_one(Ticker)
        with anyio.fail_after(10):
            await ticker.enough.wait()
    apart = sorted(later - earlier for earlier, later in itertools.pairwise(ticker.drawn[1:]))
    # Textual alone paints this one about every 2.5 drawings (50 ms); paced, a frame waits
    # for five times the last one (over 100 ms: the drawing and the rest of the frame).
    assert apart[len(apart) // 2] >= 0.8 * DRAW_SECONDS / SHARE, apart
