"""What the app starts on: the settings as the first frame needs them, then, once that frame
is painted, the settings read and checked, the codex to run found and started ahead of the
engine, and the backends opened on them."""

from __future__ import annotations

import argparse
import contextlib
import threading
from contextlib import AbstractAsyncContextManager
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from engine import DemoPlace, Spawned, find_codex, launch_for, spawn
from engine.errors import CodexDeckError
from engine.settings import Settings, as_written, file_tables, first_frame_ui

if TYPE_CHECKING:
    from engine import Attach
    from engine.frontend import Backend
    from tui.screens.sign_in import Account


def read_settings(args: argparse.Namespace) -> tuple[Settings, list[str]]:
    """The settings from the file and the environment with `--cwd` over them, and what was
    said of them that is not an error (unknown keys).

    Raises:
        SettingsError: a setting is wrong (named, with where it was set).
    """
    from engine.settings_kept import checked

    settings, warnings = checked()
    return with_cwd(settings, args), warnings


def with_cwd(settings: Settings, args: argparse.Namespace) -> Settings:
    """`settings` with `--cwd` over them, if it was given."""
    if args.cwd is None:
        return settings
    return replace(settings, codex=replace(settings.codex, cwd=args.cwd))


class Startup:
    """The app's way to its engine: `prepare`, run in a thread once the first frame is
    painted, reads the settings and starts codex; the openers open on what it read."""

    def __init__(self, args: argparse.Namespace, warnings: list[str]) -> None:
        self._args = args
        self._said = warnings
        tables = file_tables()  # read once before the paint, for both
        self.settings = Settings(ui=first_frame_ui(tables))
        """The first frame's settings until `prepare` has read them all."""
        self._read: tuple[Settings, list[str]] | None = None
        """The settings `prepare` read (before --cwd went over them), and what was said."""
        self._place: DemoPlace | None = None
        self._early: Spawned | None = None
        self._lock = threading.Lock()
        self._closed = False
        self.attach: Attach | None = None
        if args.connect:
            # The websocket client is imported only when it is used, after the first paint.
            from engine import connect

            self.attach = partial(connect, args.connect, args.token_file)
        else:
            written = as_written(tables)
            if written is not None:
                with contextlib.suppress(CodexDeckError, TypeError, AttributeError, ValueError):
                    # Settings not as they should be: the checked ones say why.
                    self._start_ahead(written, find_codex(written.codex.binary).path)

    def _start_ahead(self, settings: Settings, binary: Path) -> None:
        """Codex started now on `settings` (for the demo, where it runs): it starts while the
        app imports; the engine takes it up only if the checked settings launch it the same
        way."""
        if self._args.cwd is not None:
            settings = replace(settings, codex=replace(settings.codex, cwd=self._args.cwd))
        with self._lock:
            if not self._closed:
                self._place, self._early = head_start(settings, binary, self._args.demo)

    def greet(self) -> None:
        """Say `initialize` to the codex started ahead: it answers while the app imports
        (once the first frame is painted: the protocol's import would delay it)."""
        from engine import greet

        with self._lock:
            if self._early is not None:
                self._early = greet(self._early)

    def prepare(self) -> tuple[Settings, list[str]]:
        """Read and check the settings and find codex; start it if it was not started
        ahead, so that it starts while the app imports the main screen.

        Raises:
            CodexDeckError: a setting is wrong, or no codex is found.
        """
        try:
            from engine.settings_kept import read_settings as as_checked_last

            self._read = as_checked_last()
            settings, warnings = with_cwd(self._read[0], self._args), self._read[1]
            if not self._args.connect and self._early is None:
                self._start_ahead(settings, find_codex(settings.codex.binary).path)
        except CodexDeckError:
            self.close()  # what was started on the unchecked settings
            raise
        self.settings = settings
        return settings, self._said + warnings

    def check_again(self) -> list[str]:
        """Check the settings again, once the app is up (`prepare` may have taken them as
        they were checked last): what that says that was not said.

        Raises:
            SettingsError: a setting is wrong now.
        """
        from engine.settings_kept import check_again

        return check_again(self._read) if self._read is not None else []

    def close(self) -> None:
        """Close what was started ahead and never used (the app closed before its engine
        opened); nothing is started after this."""
        with self._lock:
            self._closed = True
            for unused in (self._early, self._place):
                if unused is not None:
                    unused.close()
            self._place = self._early = None

    def open_live(self, stored: bool = True) -> AbstractAsyncContextManager[Backend]:
        from engine.frontend import deck_backend, live_backend

        started, self._early = self._early, None  # the head start serves the first opening
        if self.settings.hosts and self.attach is None:
            return deck_backend(self.settings, early=started, stored=stored)()
        return live_backend(self.settings, attach=self.attach, early=started, stored=stored)()

    def open_unstored(self) -> AbstractAsyncContextManager[Backend]:
        """The user's codex without the store (it cannot be used, and the user chose so)."""
        return self.open_live(stored=False)

    def open_demo(self) -> AbstractAsyncContextManager[Backend]:
        from engine.frontend import demo_backend

        where, started = self._place, self._early
        self._place = self._early = None  # the head start serves the first opening only
        return demo_backend(self.settings, where, started)()

    def open_account(self) -> AbstractAsyncContextManager[Account]:
        from engine import Engine

        return Engine.open(self.settings, attach=self.attach)

    async def hints(self) -> list[str]:
        """What to tell once the engine is up: a codex daemon that could be attached to."""
        if self._args.connect or self._args.demo:
            return []
        from engine import running_daemon

        daemon = await running_daemon(self.settings.codex.home)
        if daemon is None:
            return []
        return [
            f"A codex app-server is already running at {daemon}: `codex-deck --connect "
            f"{daemon}` works on it (its threads outlive this terminal)."
        ]


def head_start(
    settings: Settings, binary: Path, demo: bool
) -> tuple[DemoPlace | None, Spawned | None]:
    """Codex's app-server spawned as the engine will ask (and for the demo, where it runs),
    so that it starts while codex-deck imports; nothing if that fails (the engine then
    tries again, and says why)."""
    try:
        place = DemoPlace.make() if demo else None
    except OSError:
        return None, None
    if place is not None:
        settings = place.settings(settings)
    cwd = place.workspace if place is not None else settings.codex.cwd or Path.cwd()
    try:
        return place, spawn(launch_for(settings, binary, cwd))
    except CodexDeckError:
        return place, None
