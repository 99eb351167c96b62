"""While the screen changes without pause, frames take at most their share of the time; a
key typed is painted at once, not when the share allows."""

from __future__ import annotations

import io
import itertools
import time
from typing import Any

import anyio
import pytest
from rich.console import Console, RenderableType
from textual import events
from textual._compositor import Compositor, CompositorUpdate
from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Input, Static

from tests.reliability.terminal import ESCAPES
from tui import pacing as paced
from tui.pacing import KeysFirstApp, PacedScreen

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


class TypedTicker(Ticker):
    """A Ticker that notes, at each drawing, what the input beside it holds."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[tuple[float, str]] = []
        self.fresh = anyio.Event()

    def render(self) -> str:
        shown = super().render()
        self.seen.append((time.perf_counter(), self.screen.query_one(Input).value))
        self.fresh.set()
        return shown


class TypingScreen(PacedScreen):
    def compose(self) -> ComposeResult:
        yield TypedTicker()
        yield Input()


class TypingApp(KeysFirstApp):
    def on_mount(self) -> None:
        self.push_screen(TypingScreen())


async def test_a_key_typed_is_painted_at_once_not_when_the_frame_budget_allows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Frames of the ever-changing ticker come 20 drawings apart (some 400 ms); a key
    # typed just after one is painted long before the next would be due.
    monkeypatch.setattr(paced, "FRAME_SHARE", 1 / 20)
    app = TypingApp()
    async with app.run_test():
        ticker = app.screen.query_one(TypedTicker)
        app.screen.query_one(Input).focus()
        with anyio.fail_after(10):
            for _ in range(2):
                ticker.fresh = anyio.Event()
                await ticker.fresh.wait()
            typed = time.perf_counter()
            app.post_message(events.Key("x", "x"))
            while not ticker.seen or ticker.seen[-1][1] != "x":
                ticker.fresh = anyio.Event()
                await ticker.fresh.wait()
    painted = ticker.seen[-1][0] - typed
    budget = 20 * DRAW_SECONDS
    assert painted < budget / 2, f"painted {painted * 1000:.0f} ms after the key"


class ChangingScreen(PacedScreen):
    def compose(self) -> ComposeResult:
        yield Static("before", id="title")
        yield Vertical(id="body")


class ChangingApp(App[None]):
    def on_mount(self) -> None:
        self.push_screen(ChangingScreen())


def painted_text(update: object) -> str:
    """The text of what a frame writes to the terminal (a compositor's update)."""
    console = Console(file=io.StringIO(), width=80, force_terminal=True, color_system=None)
    assert isinstance(update, CompositorUpdate)
    return ESCAPES.sub(b"", update.render_segments(console).encode()).decode()


async def test_a_widget_changed_with_a_change_is_painted_in_the_frame_that_ends_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A widget changed as the change ends (here: just before its frame), which has not yet
    told the screen so, is painted in that frame, not in one after (the title of the
    conversation brought into view, with its transcript); and the frame writes what changed
    once, without painting the whole screen again after it."""
    frames: list[str] = []
    painted: list[list[str]] = []
    """What the frame that ends the change writes: each update."""
    paint_changed = PacedScreen._paint_changed
    render_update = Compositor.render_update

    def changed_late(screen: PacedScreen) -> None:
        screen.query_one("#title", Static).update("after")
        frames.clear()
        paint_changed(screen)
        painted.append(list(frames))

    def noted(compositor: Compositor, *args: Any, **kwargs: Any) -> RenderableType | None:
        update = render_update(compositor, *args, **kwargs)
        frames.append(painted_text(update) if update is not None else "")
        return update

    app = ChangingApp()
    async with app.run_test() as pilot:
        screen = app.screen
        assert isinstance(screen, ChangingScreen)
        await pilot.pause()
        monkeypatch.setattr(PacedScreen, "_paint_changed", changed_late)
        monkeypatch.setattr(Compositor, "render_update", noted)
        async with screen.changing():
            await screen.query_one("#body").mount(Static("the new part"))
        await pilot.pause()
        assert len(painted[0]) == 1, "written once, not again over the whole screen"
        [written] = painted[0]
        assert "the new part" in written
        assert "after" in written, "the title changed with it is in its frame"
