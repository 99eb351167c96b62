"""Signing codex in without leaving the app: an API key (typed into a masked field and handed
to codex, which keeps it), a ChatGPT device code, or the offline demo instead."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Literal, Protocol, runtime_checkable

import anyio
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from engine import Subscription
from engine.errors import CodexDeckError
from engine.events import EngineEvent, SignInFinished
from engine.protocol import LoginStarted
from engine.results import CommandResult
from tui.reported import reported
from tui.widgets.ordered import OrderedInput

Outcome = Literal["signed-in", "demo"]


@runtime_checkable
class Account(Protocol):
    """The part of the engine that signs codex in."""

    def events(self) -> Subscription[EngineEvent]: ...

    async def sign_in_with_api_key(self, api_key: str) -> CommandResult: ...

    async def sign_in_with_device_code(self) -> LoginStarted: ...

    async def cancel_sign_in(self, login_id: str) -> None: ...


OpenAccount = Callable[[], AbstractAsyncContextManager[Account]]


class SignInScreen(ModalScreen[Outcome | None]):
    """Pick a way in; Esc goes back (and cancels a device-code sign-in that waits)."""

    BINDINGS = [Binding("escape", "back", "Back", id="signin.back")]

    DEFAULT_CSS = """
    SignInScreen { align: center middle; }
    SignInScreen > Vertical {
        width: 84; height: auto; border: round $accent; background: $surface; padding: 0 1;
    }
    SignInScreen .signin-title { text-style: bold; }
    SignInScreen #signin-why { color: $text-muted; margin: 0 0 1 0; }
    SignInScreen OptionList { height: auto; border: none; }
    SignInScreen #signin-key { display: none; }
    SignInScreen #signin-code { display: none; margin: 1 0; }
    SignInScreen #signin-error { display: none; color: $error; }
    SignInScreen .signin-keys { color: $text-muted; }
    """

    def __init__(self, open_account: OpenAccount, why: str, demo: bool = True) -> None:
        super().__init__()
        self._open_account = open_account
        self._demo = demo
        """Offer the offline demo instead (not when the app runs on the user's codex)."""
        self._account: Account | None = None
        self._ready = anyio.Event()
        self._leaving = anyio.Event()
        self._outcome: Outcome | None = None
        self._why = why
        self.login_id: str | None = None
        """The device-code sign-in that waits, if any."""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Sign in to Codex", classes="signin-title")
            yield Static(self._why, id="signin-why", markup=False)
            ways = [
                Option("API key — typed here, masked, kept by codex (not by codex-deck)", id="key"),
                Option("ChatGPT — a code to enter at a sign-in page, from any device", id="code"),
            ]
            if self._demo:
                demo = "Offline demo — the real engine on a built-in model, no account"
                ways.append(Option(demo, id="demo"))
            yield OptionList(*ways, id="signin-ways")
            yield OrderedInput(password=True, placeholder="sk-…  (Enter signs in)", id="signin-key")
            yield Static(id="signin-code", markup=False)
            yield Static(id="signin-error", markup=False)
            yield Static("enter choose · esc back", classes="signin-keys")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()
        self._hold_codex()

    @work(group="signin-codex")
    async def _hold_codex(self) -> None:
        """The user's own codex (their CODEX_HOME), open while the screen is; closed before
        the screen goes, so no codex process outlives it."""
        try:
            async with self._open_account() as account, anyio.create_task_group() as tasks:
                self._account = account
                self._ready.set()
                tasks.start_soon(self._follow, account)
                await self._leaving.wait()
                tasks.cancel_scope.cancel()
        except CodexDeckError as error:
            self._error(f"codex could not start: {error}")
        finally:
            self._account = None
            self._ready.set()
        if self._leaving.is_set():
            self.dismiss(self._outcome)

    async def _follow(self, account: Account) -> None:
        async for event in account.events():
            if isinstance(event, SignInFinished):
                self.finished(event)

    def _leave(self, outcome: Outcome | None) -> None:
        """Close the user's codex, then the screen."""
        self._outcome = outcome
        if self._account is None and self._ready.is_set():
            self.dismiss(outcome)
        self._leaving.set()

    async def _codex(self) -> Account:
        """Raises CodexDeckError when the user's codex could not be started."""
        await self._ready.wait()
        if self._account is None:
            raise CodexDeckError("codex is not running; see the message above")
        return self._account

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self._error("")
        if event.option.id == "demo":
            self._leave("demo")
        elif event.option.id == "key":
            key = self.query_one(Input)
            key.display = True
            key.focus()
        else:
            self._device_code()

    @on(Input.Submitted)
    def _key_entered(self, event: Input.Submitted) -> None:
        self._send_key(event.value)

    @work(exclusive=True, group="signin")
    @reported("codex could not sign in")
    async def _send_key(self, key: str) -> None:
        try:
            result = await (await self._codex()).sign_in_with_api_key(key)
        except CodexDeckError as error:
            self._error(str(error))
            return
        if result.ok:
            self.query_one(Input).value = ""
            self._leave("signed-in")
        else:
            self._error(result.message)

    @work(exclusive=True, group="signin")
    @reported("codex could not sign in")
    async def _device_code(self) -> None:
        try:
            started = await (await self._codex()).sign_in_with_device_code()
        except CodexDeckError as error:
            self._error(f"codex could not start a ChatGPT sign-in: {error}")
            return
        self.login_id = started.login_id
        code = self.query_one("#signin-code", Static)
        code.update(
            f"Open {started.verification_url}\nand enter the code  {started.user_code}\n"
            "Waiting for the sign-in to finish… (esc cancels)"
        )
        code.display = True

    def finished(self, event: SignInFinished) -> None:
        """codex says how the device-code sign-in ended."""
        if self.login_id is None or event.login_id != self.login_id:
            return  # not the device-code sign-in this screen waits for (an API key's, say)
        self.login_id = None
        if event.success:
            self._leave("signed-in")
        else:
            self.query_one("#signin-code", Static).display = False
            self._error(f"The sign-in did not finish: {event.error or 'codex gave no reason'}")

    def _error(self, text: str) -> None:
        error = self.query_one("#signin-error", Static)
        error.update(text)
        error.display = bool(text)

    async def action_back(self) -> None:
        if self.login_id is not None and self._account is not None:
            await self._account.cancel_sign_in(self.login_id)
            self.login_id = None
            self.query_one("#signin-code", Static).display = False
            self.query_one(OptionList).focus()
            return
        key = self.query_one(Input)
        if key.display:
            key.display = False
            self.query_one(OptionList).focus()
            return
        self._leave(None)
