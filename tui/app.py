"""The codex-deck app: paints at once, starts the engine in the background, bridges its events."""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import os
import signal
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec
import platformdirs
from textual import events, work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.filter import LineFilter
from textual.screen import Screen
from textual.worker import Worker, WorkerCancelled, WorkerFailed

from engine.errors import CodexDeckError, SettingsError, StoreError
from engine.events import ItemDelta
from engine.settings import Settings
from themes import STYLESHEET
from themes.built import DARK, THEMES
from tui.collector import CHECK_SECONDS, Collector
from tui.controls import DropControls
from tui.first_frame import ENDINGS
from tui.notify import alert
from tui.pacing import after_painted
from tui.palette import main_commands
from tui.private import crop_renders, drop_screen, mend_strips
from tui.replay_keys import ReplayKeys
from tui.screens.confirm import ConfirmScreen, quitting_loses, without_store
from tui.screens.starting import StartingScreen
from tui.search_provider import ConversationSearch
from tui.widgets.draft import Draft

if TYPE_CHECKING:
    from engine.frontend import OpenBackend
    from engine.replay import ReplayBackend
    from tui.bridge import AttentionNeeded
    from tui.recorder import Recorder
    from tui.screens.main import MainScreen
    from tui.screens.sign_in import Account, OpenAccount

Prepare = Callable[[], tuple[Settings, list[str]]]
"""What the app runs, in a thread, once its first frame is painted: the settings read and
checked, and what was wrong with them that is no error (`tui.startup.Startup.prepare`)."""

SIGNED_OUT = (
    "codex has no account signed in, so this is the offline demo. Sign in to work with your "
    "own codex, or carry on with the demo."
)
SIGNED_OUT_HERE = (
    "The codex on this machine has no account signed in; the other hosts work as they are. "
    "Sign it in to work here too (esc: later, with /login)."
)


class SignIn(msgspec.Struct, frozen=True):
    """How the app signs the user's codex in: `open_account` opens their codex for it,
    `open_live` is the backend to run on afterwards; `offer_at_start` shows the screen
    when the app had to start on the demo."""

    open_account: OpenAccount
    open_live: OpenBackend
    offer_at_start: bool = False


def already_open(account: Account) -> OpenAccount:
    """Opens `account`, which is open already (and stays open)."""
    return lambda: contextlib.nullcontext(account)


FIRST_TITLE = "Conversation 1"
"""The title of the conversation started when the engine has none."""
TERMINAL_CHECK_SECONDS = 1.0
BATCH_SECONDS = 1 / 60
"""A streamed answer's pieces go to the main screen at most this often, each time with all that
has come meanwhile (a fast stream comes in a thousand batches a second, each with a cost of its
own on the screen); what comes after a quiet moment, and any other event (a request, files
found for an `@`, a turn's end), goes at once."""
EXIT_GRACE_SECONDS = 2.0
"""After the terminal went away and the engine is closed, how long Textual may take to exit."""


class CodexDeckApp(ReplayKeys):
    """Conversations with Codex in the terminal. The engine is opened by `open_backend`."""

    TITLE = "codex-deck"
    CSS_PATH = [STYLESHEET]
    COMMANDS = App.COMMANDS | {ConversationSearch}
    BINDINGS = [
        Binding("f1", "help", "Keys", id="app.help"),
        Binding("ctrl+q", "quit", "Quit", id="app.quit", priority=True),
        Binding("f9", "replay_pause", "Pause/play", id="replay.pause"),
        Binding("f10", "replay_step", "Step", id="replay.step"),
    ]

    def __init__(
        self,
        settings: Settings,
        open_backend: OpenBackend,
        *,
        welcome: str = "",
        demo_tour: str = "",
        conversation: str | None = None,
        sign_in: SignIn | None = None,
        hints: Callable[[], Awaitable[list[str]]] | None = None,
        record: Path | None = None,
        prepare: Prepare | None = None,
        check_again: Callable[[], list[str]] | None = None,
        attached: bool = False,
        open_unstored: OpenBackend | None = None,
    ) -> None:
        super().__init__()
        self.first_typed: Draft | None = None
        """What was typed on the frame painted before the app (`tui.first_frame`)."""
        self.quit_asked = False
        """ctrl+q or ctrl+c was pressed on that frame: quit once the main screen is up."""
        self._attached = attached
        """codex runs on without the app (--connect): quitting only detaches."""
        self._open_unstored = open_unstored
        """The same codex without the store, offered when the store cannot be used."""
        self._prepare = prepare
        """Run in a thread once the first frame is painted, before the engine opens: the
        settings read and checked (`settings` is the first frame's until then), and what
        was wrong with them that the main screen tells."""
        self._warnings: list[str] = []
        self._check_again = check_again
        """Run in a thread once the frame that shows the engine up is painted: the settings
        checked again (`prepare` may take them as they were checked last), and what that says
        that was not said."""
        self._recorder: Recorder | None = None
        """Writes the session's events (`codex-deck --record`)."""
        if record is not None:
            from tui.recorder import Recorder

            self._recorder = Recorder(record)
        self._ending = False
        self.settings = settings
        self._conversation = conversation
        self._sign_in = sign_in
        self._hints = hints
        """Asked once the engine is up: what to tell then (a codex daemon that could be
        attached to, say)."""
        self._open_backend = open_backend
        self._welcome = welcome
        self._demo_tour = demo_tour
        self._bridge: Worker[None] | None = None
        self._main: MainScreen | None = None
        self._drop_controls = DropControls()
        self._collector = Collector()

    def get_line_filters(self) -> Sequence[LineFilter]:
        """Textual's filters, then the one that keeps control characters in drawn text from
        the terminal."""
        return [*super().get_line_filters(), self._drop_controls]

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.InputEvent) and not event.is_forwarded:
            self._collector.busy()
        await super().on_event(event)

    def on_mount(self) -> None:
        mend_strips()
        crop_renders()
        self._collector.start()
        self.set_interval(CHECK_SECONDS, self._collector.check)
        for theme in THEMES:
            self.register_theme(theme)
        known = self.available_themes  # Textual's and the ones just registered
        self.theme = self.settings.ui.theme if self.settings.ui.theme in known else DARK.name
        if self.settings.ui.keys:
            self.set_keymap(dict(self.settings.ui.keys))
        # asyncio's own event and thread here, not anyio's: importing anyio's backend takes
        # some 40 ms, which would come before the first paint.
        self._main_made = asyncio.Event()
        self._settings_read = asyncio.Event()
        """Set once the settings are read (or could not be), before the engine opens."""
        starting = StartingScreen(self._welcome or self._demo_tour, self.first_typed)
        self.push_screen(starting)
        self._open_main(starting)
        if not self.is_headless and sys.__stdin__ is not None and sys.__stdin__.isatty():
            self.set_interval(TERMINAL_CHECK_SECONDS, self._check_terminal)
        if not self.is_headless:
            loop = asyncio.get_running_loop()
            for hang_up in ENDINGS:
                loop.add_signal_handler(hang_up, self._close_unseen)
        # Held since just before the app ran (`tui.cli`): one that came meanwhile comes now.
        signal.pthread_sigmask(signal.SIG_UNBLOCK, ENDINGS)

    def _check_terminal(self) -> None:
        """A terminal that went away without a hang-up (its window killed, a dropped
        connection) leaves the input at end of file: close as on ctrl+q, declining what
        waits, instead of running on unseen."""
        stdin = sys.__stdin__
        if stdin is not None and not os.isatty(stdin.fileno()):
            self._close_unseen()

    def _close_unseen(self) -> None:
        """The terminal went away, hung up (SIGHUP: an ssh connection dropped) or the app was
        told to end (SIGTERM): close as on ctrl+q, declining what waits."""
        if not self._ending:
            self._ending = True
            self.run_worker(self._terminal_gone(), exclusive=True)

    async def _terminal_gone(self) -> None:
        await self.shut_down()  # the engine is closed, answers declined, the store written
        # Textual's own exit restores the terminal; with none left it can hang there: end
        # the process if it has not ended by itself meanwhile.
        last_word = threading.Timer(EXIT_GRACE_SECONDS, os._exit, (0,))
        last_word.daemon = True
        last_word.start()

    @work(group="start", exit_on_error=True)
    async def _open_main(self, starting: StartingScreen) -> None:
        """Once the first frame is painted (importing beside it slowed it down), import the
        engine and start it, then import the main screen (while codex starts) and show it,
        with what was typed on the first frame in its composer."""
        painted = asyncio.Event()
        self.call_after_refresh(painted.set)
        await painted.wait()
        await asyncio.to_thread(importlib.import_module, "engine.frontend")
        self._bridge = self._run_engine()
        main_screen = await asyncio.to_thread(importlib.import_module, "tui.screens.main")
        self._main = main_screen.MainScreen(
            self._welcome, self._demo_tour, self._conversation, typed=lambda: starting.draft
        )
        # What is typed while the screens change places would reach neither message box.
        self.keep_typed()
        await self.switch_screen(self._main)
        await self.hand_on_typed()
        self._main_made.set()
        self.run_worker(self._tell_settings_problems(), group="settings")
        if self.quit_asked:
            self.run_worker(self.action_quit(), group="quit")

    async def _tell_settings_problems(self) -> None:
        """Tell, on the main screen, what the settings asked for that is not done: their
        unknown keys, a theme the app lacks, a key given to a binding nothing has."""
        from tui.keymap import ui_problems

        await self._settings_read.wait()
        problems, self._warnings = self._warnings, []
        problems += await asyncio.to_thread(ui_problems, self.settings.ui)
        if problems:
            told = "\n".join(f"• {problem}" for problem in problems)
            self.notify(told, title="Settings", severity="warning", timeout=20, markup=False)

    async def _settings_again(self, check: Callable[[], list[str]]) -> None:
        """Check the settings again once the engine is up, and tell what that finds."""
        try:
            problems = await asyncio.to_thread(check)
        except SettingsError as error:
            why = f"The settings need fixing: {error} (`codex-deck config --edit`)."
            self.notify(why, title="Settings", severity="error", timeout=30, markup=False)
            return
        if problems:
            told = "\n".join(f"• {problem}" for problem in problems)
            self.notify(told, title="Settings", severity="warning", timeout=20, markup=False)

    async def _main_shown(self) -> MainScreen:
        """The main screen, once it is made and mounted."""
        await self._main_made.wait()
        await self.main.mounted.wait()
        return self.main

    @property
    def opened(self) -> bool:
        """The main screen is mounted (it is made just after the first frame is painted)."""
        return self._main is not None and self._main.mounted.is_set()

    @property
    def main(self) -> MainScreen:
        """The main screen (there is always one once the app is mounted)."""
        assert self._main is not None
        return self._main

    @work(group="engine", exit_on_error=False)
    async def _run_engine(self) -> None:
        """Read the settings (with `prepare`), open the engine and hand its events to the
        main screen until the app closes."""
        try:
            prepare, self._prepare = self._prepare, None  # once: not again after a sign-in
            try:
                if prepare is not None:
                    self.settings, self._warnings = await asyncio.to_thread(prepare)
            finally:
                self._settings_read.set()  # the settings' problems are told now
            try:
                await self._serve()
            except StoreError as error:
                if self._open_unstored is None:
                    raise
                await self._main_shown()
                if not await self.push_screen_wait(ConfirmScreen(without_store(error))):
                    raise
                self._open_backend, self._open_unstored = self._open_unstored, None
                await self._serve()
        except StoreError as error:
            why = f"{error}. `[store] path` in the settings moves it (`codex-deck config --edit`)."
            (await self._main_shown()).backend_failed("the store cannot be used", why)
            self._collector.settled()
        except SettingsError as error:
            why = f"the settings could not be read: {error} (`codex-deck config --edit` fixes them)"
            (await self._main_shown()).backend_failed("settings need fixing", why)
            self._collector.settled()
        except CodexDeckError as error:
            why = f"codex could not start: {error}"
            (await self._main_shown()).backend_failed("codex failed to start", why)
            self._collector.settled()

    async def _serve(self) -> None:
        """Open the backend and hand its events to the main screen until it closes."""
        async with self._open_backend() as backend:
            events = backend.events()
            recorder = self._recorder
            if recorder is not None and recorder.worker is None:  # the first backend only
                recording = recorder.run(backend, backend.events(), self.notify)
                recorder.worker = self.run_worker(recording, group="record", exit_on_error=False)
            # With none yet, the first conversation's thread starts while the main
            # screen is mounted.
            first = None
            if not backend.conversations():
                first = asyncio.ensure_future(backend.new_conversation(FIRST_TITLE))
            try:
                main = await self._main_shown()
                await main.backend_ready(backend, first)
            finally:
                if first is not None:
                    first.cancel()  # not awaited: the app closed meanwhile
            self._collector.settled()
            self.call_after_refresh(self._warm_up)  # after the frame that shows it ready
            check, self._check_again = self._check_again, None
            if check is not None:  # its pydantic import, beside the frame, would delay it
                after_painted(self.main, partial(self._settings_again, check))
            hints, self._hints = self._hints, None
            for hint in await hints() if hints is not None else []:
                self.notify(hint, timeout=15, markup=False)
            signed_out = backend.offline or backend.needs_sign_in
            if signed_out and self._sign_in is not None and self._sign_in.offer_at_start:
                self._sign_in = msgspec.structs.replace(self._sign_in, offer_at_start=False)
                self.offer_sign_in(SIGNED_OUT if backend.offline else SIGNED_OUT_HERE)
            from tui.bridge import EngineBatch

            posted = 0.0
            while True:
                try:
                    batch = await events.batches()
                except StopAsyncIteration:
                    break
                self._collector.busy()
                wait = posted + BATCH_SECONDS - time.perf_counter()
                if wait > 0 and all(isinstance(event, ItemDelta) for event in batch):
                    await asyncio.sleep(wait)
                    batch += events.come()
                posted = time.perf_counter()
                self.main.post_message(EngineBatch(batch))

    @work(thread=True, group="warm-up")
    def _warm_up(self) -> None:
        """Import, in a thread once the app is ready, what answers, diffs and raw events are
        drawn with: kept off the way to ready (some 40 ms), and not left for the first answer
        to wait on."""
        importlib.import_module("rich.markdown")  # which imports markdown_it and rich.syntax

    def offer_sign_in(self, why: str) -> None:
        """The sign-in screen, on the user's own codex; once signed in, the app runs on it."""
        if self._sign_in is None:
            self.notify("This codex-deck has no codex of yours to sign in.", severity="error")
            return
        from tui.screens.sign_in import Account, SignInScreen

        backend = self.main.backend if self.opened else None
        open_account = self._sign_in.open_account
        if backend is not None and not backend.offline and isinstance(backend, Account):
            # Signed in through the codex in use, which then knows it at once (another codex
            # process signing in writes codex's auth store, but this one's /account would
            # still say signed out).
            open_account = already_open(backend)
        demo = backend is None or backend.offline
        self.push_screen(SignInScreen(open_account, why, demo), self._signed_in)

    def _signed_in(self, outcome: str | None) -> None:
        if outcome != "signed-in" or self._sign_in is None:
            return
        self.notify("Signed in: codex-deck now runs on your codex.")
        backend = self.main.backend
        if backend is None or backend.offline:
            opener = self._sign_in.open_live
            # After the sign-in screen is gone from the stack, not while it is leaving.
            self.call_after_refresh(lambda: self.run_worker(self._switch(opener), exclusive=True))

    async def _switch(self, opener: OpenBackend) -> None:
        """Close the engine in use and open `opener`'s, on a fresh main screen (a recording
        of the one closed stops, saying so)."""
        if self._recorder is not None:
            self._recorder.moving()
        if self._bridge is not None and self._bridge.is_running:
            self._bridge.cancel()
            with contextlib.suppress(WorkerCancelled):
                await self._bridge.wait()
        self._open_backend = opener
        from tui.screens.main import MainScreen

        old = self._main
        typed = (lambda: old.draft) if old is not None else None  # what was written stays
        self._main = MainScreen(self._welcome, self._demo_tour, typed=typed)
        await self.push_screen(self._main)
        if old is not None:
            drop_screen(self, old)
            await old.remove()
        self._bridge = self._run_engine()

    def on_attention_needed(self, event: AttentionNeeded) -> None:
        alert(self, event.text, self.settings.ui.notifications)

    def action_help(self) -> None:
        from tui.screens.help import HelpScreen, keys_in

        own = [
            b for b in self.BINDINGS if isinstance(b, Binding) and self.check_action(b.action, ())
        ]
        self.push_screen(HelpScreen(keys_in(own, self.screen_stack, self.settings.ui.keys)))

    def deliver_screenshot(
        self,
        filename: str | None = None,
        path: str | None = None,
        time_format: str | None = None,
    ) -> str | None:
        """The palette's Screenshot (and `screenshot` action): in a browser, handed to it as
        Textual does; in a terminal, an SVG for the user alone (0600) in the downloads
        folder (made if missing: Textual's own failed there), or where `path` says."""
        if self.is_web:
            return super().deliver_screenshot(filename, path, time_format)
        from engine import write_private

        folder = Path(path).expanduser() if path else platformdirs.user_downloads_path()
        stamp = time.strftime(time_format or "%Y-%m-%dT%H_%M_%S")
        target = folder / (filename or f"codex-deck_{stamp}.svg")
        try:
            write_private(target, self.export_screenshot(), replace=False)
        except OSError as error:
            why = error.strerror or str(error)
            self.notify(f"The screenshot was not saved: {why} ({target})", severity="error")
            return None
        self.notify(f"Saved the screenshot to {target}", title="Screenshot", markup=False)
        return None

    async def action_quit(self) -> None:
        """Close the engine first: pending approvals are declined, running turns stopped.

        Ask first when quitting loses something: answers still pending (quitting declines
        them; attached to a shared codex, or of a listening host, it declines nothing: those
        requests wait for the next client), a message written and not sent, images attached
        to the next message.
        """
        typed = self.main.draft.text if self.playing() is None else ""  # a replay sends none
        listening = [name for name, host in self.settings.hosts.items() if host.listening]
        lost = quitting_loses(self.main.backend, typed, self._attached, listening)
        if lost and not isinstance(self.screen, ConfirmScreen):
            question = " ".join([*lost, "Quit?"])
            self.push_screen(ConfirmScreen(question), self._quit_if_confirmed)
            return
        await self.shut_down()

    def _quit_if_confirmed(self, confirmed: bool | None) -> None:
        if confirmed:
            self.run_worker(self.shut_down(), exclusive=True)

    async def shut_down(self) -> None:
        """Close the engine (declining what waits for an answer) and exit, without asking."""
        await self._close_engine()
        self.exit()

    async def on_exit_app(self) -> None:
        """Told to exit by something else than codex-deck (textual-serve ending a browser
        session or stopping; the web driver's SIGINT): close the engine first, as ctrl+q
        does. Textual's own exit, which follows, would only cancel the engine's worker, and
        its second cancellation, as asyncio ends, cuts the engine's closing short (the store
        then keeps a request as still waiting)."""
        await self._close_engine()

    async def _close_engine(self) -> None:
        if self._bridge is not None and self._bridge.is_running:
            self._bridge.cancel()
            with contextlib.suppress(WorkerCancelled):
                await self._bridge.wait()
        if self._recorder is not None and self._recorder.worker is not None:
            with contextlib.suppress(WorkerCancelled, WorkerFailed):
                await self._recorder.worker.wait()

    def playing(self) -> ReplayBackend | None:
        if self._main is None or self._main.backend is None:
            return None
        from engine.replay import ReplayBackend

        backend = self._main.backend
        return backend if isinstance(backend, ReplayBackend) else None

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        if self._main is None:
            return
        yield from main_commands(self._main)
        yield SystemCommand("Keys and commands", "f1", self.action_help)
