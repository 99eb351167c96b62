"""The app on the real engine (real codex binary, scripted model), driven with Pilot."""

from __future__ import annotations

import gc
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from functools import partial
from pathlib import Path

import anyio
import pytest
from textual.pilot import Pilot

from engine.engine import Engine
from engine.frontend import Backend
from engine.records.store import Store
from engine.scripted_model import ScriptedModel
from engine.settings import Settings
from engine.transport.offline import offline_settings
from tests.tui.tmux import Terminal, open_terminal
from tui import collector
from tui.app import CodexDeckApp
from tui.screens.main import MainScreen
from tui.widgets.transcript import Transcript

DEADLINE_SECONDS = 30
Deck = Callable[..., AbstractAsyncContextManager[tuple[CodexDeckApp, Pilot[None]]]]


async def until(pilot: Pilot[None], condition: Callable[[], object], what: str) -> None:
    """Let the app run until `condition()` holds (failing after a deadline)."""
    try:
        with anyio.fail_after(DEADLINE_SECONDS):
            while not condition():
                await pilot.pause(0.02)
    except TimeoutError:
        raise AssertionError(f"timed out waiting until {what}") from None


async def go_to_request(app: CodexDeckApp, pilot: Pilot[None]) -> None:
    """Press ctrl+g once the request is announced above the message box (as a person sees
    it), which moves to its card."""
    waiting = app.main.query_one("#waiting")
    await until(pilot, lambda: waiting.display, "the request is announced")
    await pilot.press("ctrl+g")


@pytest.fixture
def full_passes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The app's collector makes its first full pass as soon as the app has settled (at its
    next check); each full pass made (by anyone) is counted in the list returned."""
    made: list[int] = []
    collect = gc.collect

    def counted(generation: int = 2) -> int:
        if generation == 2:
            made.append(gc.get_freeze_count())
        return collect(generation)

    monkeypatch.setattr(collector, "QUIET_SECONDS", 0.0)
    monkeypatch.setattr(gc, "collect", counted)
    return made


def transcript(app: CodexDeckApp) -> Transcript:
    main = app.main
    assert main.current is not None
    found = main.query_one(f"#transcript-{main.current}", Transcript)
    return found


@pytest.fixture
def deck(scripted_model: ScriptedModel, codex_home: Path, workspace: Path) -> Deck:
    """Open the app on the real engine; yields it with its pilot once the engine is up."""

    @asynccontextmanager
    async def open_deck(
        size: tuple[int, int] = (120, 36),
        settings: Settings | None = None,
        store: Path | None = None,
        conversation: str | None = None,
        record: Path | None = None,
        hints: Callable[[], Awaitable[list[str]]] | None = None,
    ) -> AsyncIterator[tuple[CodexDeckApp, Pilot[None]]]:
        offline = offline_settings(settings or Settings(), scripted_model, codex_home)

        app = CodexDeckApp(
            offline,
            partial(engine_on, offline, workspace, store),
            welcome="welcome",
            demo_tour="tour",
            conversation=conversation,
            record=record,
            hints=hints,
        )
        async with app.run_test(size=size) as pilot:
            await until(pilot, lambda: app.opened and ready(app.main), "the engine is up")
            yield app, pilot
            await app.shut_down()

    return open_deck


@asynccontextmanager
async def engine_on(
    settings: Settings, workspace: Path, store: Path | None = None
) -> AsyncIterator[Backend]:
    """The engine on `settings`, keeping its conversations in `store` if given."""
    kept = Store.open(store) if store is not None else None
    try:
        async with Engine.open(settings, cwd=workspace, store=kept) as engine:
            yield engine
    finally:
        if kept is not None:
            kept.close()


@pytest.fixture
def terminal(tmp_path: Path) -> Iterator[Terminal]:
    """A real terminal (tmux), 120 by 36."""
    with open_terminal(tmp_path) as opened:
        yield opened


def ready(main: MainScreen) -> bool:
    """The engine is up and the main screen has shown what it has (the status says so)."""
    shown = main.status.engine_state != "starting codex…"
    return main.backend is not None and main.current is not None and shown
