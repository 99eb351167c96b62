"""The first run: the sign-in screen offered when the app had to start on the demo, an API key
typed into a masked field signs the user's codex in and the app moves onto it, a device code
that codex cannot start says why, a finished device-code sign-in closes the screen, and a codex
too old for the protocol is refused in plain words; a recording that stops at the sign-in
says so."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from functools import partial
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, OptionList, Static

from engine.engine import Engine
from engine.events import EngineEvent, Notice, SignInFinished
from engine.frontend import Backend
from engine.records.recording import event_to_json, read_recording
from engine.scripted_model import ScriptedModel
from engine.settings import CodexSettings, Settings
from engine.transport.binary import find_codex
from engine.transport.offline import offline_settings
from tests.reliability.report import Ledger, asked_of
from tests.tui.conftest import engine_on, ready, until
from tui.app import CodexDeckApp, SignIn
from tui.recorder import RECORDING_STOPPED
from tui.screens.sign_in import SignInScreen
from tui.widgets.composer import Composer
from tui.widgets.status_bar import StatusBar

pytestmark = pytest.mark.anyio

API_KEY = "sk-proj-codexdecktestkey0123456789"


@asynccontextmanager
async def signed_out_app(
    model: ScriptedModel,
    home: Path,
    workspace: Path,
    store: Path | None = None,
    record: Path | None = None,
) -> AsyncIterator[tuple[CodexDeckApp, Pilot[None]]]:
    """The app started on the demo because the user's codex (OpenAI, here the scripted model
    behind `openai_base_url`) has no account; the user's codex keeps its conversations in
    `store`, if given; the session is recorded to `record`, if given."""
    demo_home = home.parent / "demo-home"
    demo_home.mkdir()
    demo = offline_settings(Settings(), model, demo_home)
    own = Settings(
        codex=CodexSettings(
            home=home,
            model="gpt-5.5",
            config=[f'openai_base_url="{model.base_url}"', "features.plugins=false"],
        )
    )

    @asynccontextmanager
    async def open_demo() -> AsyncIterator[Backend]:
        async with Engine.open(demo, cwd=workspace) as engine:
            yield engine

    open_live = partial(engine_on, own, workspace, store)

    sign_in = SignIn(partial(Engine.open, own, cwd=workspace), open_live, offer_at_start=True)
    app = CodexDeckApp(demo, open_demo, welcome="w", demo_tour="t", sign_in=sign_in, record=record)
    async with app.run_test(size=(120, 36)) as pilot:
        await until(
            pilot,
            lambda: isinstance(app.screen, SignInScreen) and app.screen.query(OptionList),
            "sign-in is offered",
        )
        yield app, pilot
        await app.shut_down()


async def choose(pilot: Pilot[None], app: CodexDeckApp, way: str) -> None:
    options = app.screen.query_one(OptionList)
    options.highlighted = options.get_option_index(way)
    await pilot.press("enter")


async def test_an_api_key_signs_in_and_the_app_moves_onto_the_users_codex(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path, tmp_path: Path, tally: Ledger
) -> None:
    store = tmp_path / "store" / "store.sqlite3"
    async with signed_out_app(scripted_model, codex_home, workspace, store) as (app, pilot):
        why = str(app.screen.query_one("#signin-why", Static).render())
        assert "this is the offline demo" in why
        await choose(pilot, app, "key")
        key = app.screen.query_one(Input)
        assert key.password
        await pilot.press(*API_KEY)
        assert API_KEY not in app.export_screenshot()
        first = app.main
        first.query_one(Composer).text = "written on the demo"
        await pilot.press("enter")
        await until(pilot, lambda: not isinstance(app.screen, SignInScreen), "signed in")
        await until(pilot, lambda: app.main is not first, "a new main screen")
        await until(pilot, app.main.mounted.is_set, "the new main screen is mounted")
        composer = app.main.query_one(Composer)
        assert composer.text == "written on the demo", "what was written moves with the app"
        composer.text = ""
        await until(
            pilot,
            lambda: "codex online" in str(app.main.query_one(StatusBar).render()),
            "the app runs on the user's codex",
        )
        backend = app.main.backend
        assert backend is not None
        assert not backend.offline
        assert (await backend.account()).account is not None  # type: ignore[attr-defined]
        said: list[EngineEvent] = [*backend.general_notices()]
        said += [e for c in backend.conversations() for e in backend.full_trace(c.id)]
        traced = "".join(json.dumps(event_to_json(event)) for event in said)
        assert API_KEY not in traced, "the key typed at sign-in is in no event"
        assert API_KEY not in app.export_screenshot()

        await pilot.press(*"count for me", "enter")
        await until(pilot, lambda: asked_of(scripted_model)["count for me"], "a turn on it")
    files = {path.name: path.read_bytes() for path in store.parent.iterdir()}
    assert "store.sqlite3" in files
    holding = [name for name, data in files.items() if API_KEY.encode() in data]
    tally(
        "security",
        "an API key typed at sign-in: masked, in no event, store or screen",
        cases=3 + len(files),
    )
    assert holding == [], "the key typed at sign-in is in no file of the store"


async def test_a_device_code_codex_cannot_start_is_said_and_esc_keeps_the_demo(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path
) -> None:
    async with signed_out_app(scripted_model, codex_home, workspace) as (app, pilot):
        await choose(pilot, app, "code")
        error = app.screen.query_one("#signin-error", Static)
        await until(pilot, lambda: error.display, "codex's refusal shows")
        assert "failed to request device code" in str(error.render())
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, SignInScreen), "it closes")
        assert app.main.backend is not None
        assert app.main.backend.offline


async def test_a_finished_device_code_sign_in_closes_the_screen(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path
) -> None:
    """Codex cannot hand out a device code offline, so the waiting state and its end are
    driven here with the event codex would send."""
    async with signed_out_app(scripted_model, codex_home, workspace) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, SignInScreen)
        screen.login_id = "login-1"
        failed = SignInFinished(
            seq=1,
            at=0.0,
            conversation_id=None,
            login_id="login-1",
            success=False,
            error="the code expired",
        )
        screen.finished(failed)
        error = screen.query_one("#signin-error", Static)
        assert "the code expired" in str(error.render())
        first = app.main
        screen.login_id = "login-2"
        screen.finished(
            SignInFinished(
                seq=2, at=0.0, conversation_id=None, login_id="login-2", success=True, error=None
            )
        )
        await until(pilot, lambda: not isinstance(app.screen, SignInScreen), "it closes")
        await until(pilot, lambda: app.main is not first and ready(app.main), "it moves on")


async def test_a_codex_too_old_for_the_protocol_is_said_plainly(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path, tmp_path: Path
) -> None:
    """A wrapper around the real codex that reports an older version in its handshake."""
    wrapper = tmp_path / "old-codex"
    real = find_codex(None).path
    wrapper.write_text(f"#!/bin/sh\n{real} \"$@\" | sed -u 's#/0\\.163\\.0 #/0.100.0 #'\n")
    wrapper.chmod(0o755)
    base = Settings()
    old = offline_settings(
        replace(base, codex=replace(base.codex, binary=wrapper)),
        scripted_model,
        codex_home,
    )

    @asynccontextmanager
    async def open_old() -> AsyncIterator[Backend]:
        async with Engine.open(old, cwd=workspace) as engine:
            yield engine

    app = CodexDeckApp(old, open_old, welcome="w", demo_tour="t")
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: app.opened, "the main screen opens")
        note = app.main.query_one("#composer-note", Static)
        await until(pilot, lambda: "too old" in str(note.render()), "the refusal shows")
        assert "codex 0.100.0 is too old for codex-deck (it needs 0.163.0 or newer)" in str(
            note.render()
        )
        assert app.main.backend is None


async def test_a_recording_that_stops_at_a_sign_in_says_so_on_screen_and_in_the_file(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path, tmp_path: Path
) -> None:
    """A recording keeps one codex's session: moving from the demo to the user's codex ends
    it, and both the screen and the file's last line say so."""
    path = tmp_path / "session.jsonl"
    async with signed_out_app(scripted_model, codex_home, workspace, record=path) as (app, pilot):
        first = app.main
        await choose(pilot, app, "key")
        await pilot.press(*API_KEY, "enter")
        await until(pilot, lambda: app.main is not first, "a new main screen")
        await until(pilot, app.main.mounted.is_set, "the new main screen is mounted")
        await until(pilot, lambda: RECORDING_STOPPED in _notes(app), "the screen says it")
    *_, last = read_recording(path)
    assert isinstance(last, Notice)
    assert last.text == RECORDING_STOPPED
    assert API_KEY not in path.read_text()


def _notes(app: CodexDeckApp) -> str:
    return " ".join(str(n.message) for n in app._notifications)
