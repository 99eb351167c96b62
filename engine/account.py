"""The Codex account codex is signed in with: read it, sign in (an API key, or ChatGPT with a
device code), sign out. codex keeps the credentials in its own auth store; codex-deck keeps
nothing of them (not in events, the trace, the store or logs)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from engine import protocol as wire
from engine.errors import ConnectionClosed, RpcError
from engine.results import CommandResult
from engine.transport.appserver import AppServer

ACCOUNT_TYPES = {"apiKey": "an API key", "chatgpt": "ChatGPT"}
"""Codex's names of the ways in, as said to the user."""


class Account:
    """Sign-in on the codex in use (`current()`: it changes when codex is started again)."""

    def __init__(self, current: Callable[[], AppServer]) -> None:
        self._current = current

    async def read(self) -> wire.AccountReadResult:
        """The account codex is signed in with (if any), and whether it needs one."""
        return await self._current().account_read(wire.AccountReadParams())

    async def sign_in_with_api_key(self, api_key: str) -> CommandResult:
        """Give codex an API key to keep in its own auth store."""
        if not api_key.strip():
            return CommandResult(False, "No API key was given; nothing was sent.")
        params = wire.ApiKeyLoginParams(api_key=api_key.strip())
        try:
            await self._current().call("account/login/start", params, wire.LoginStarted)
        except (RpcError, ConnectionClosed) as error:
            return CommandResult(False, f"codex refused the key: {error}")
        return CommandResult(True, "Signed in with an API key (codex keeps it).")

    async def sign_in_with_device_code(self) -> wire.LoginStarted:
        """Start a ChatGPT sign-in with a device code: show `verification_url` and
        `user_code`; `SignInFinished` says how it ended.

        Raises:
            RpcError, ConnectionClosed: codex could not start it (its words).
        """
        params = wire.DeviceCodeLoginParams()
        return await self._current().call("account/login/start", params, wire.LoginStarted)

    async def cancel_sign_in(self, login_id: str) -> None:
        with contextlib.suppress(RpcError, ConnectionClosed):
            params = wire.CancelLoginParams(login_id=login_id)
            await self._current().call("account/login/cancel", params, wire.EmptyResult)

    async def sign_out(self) -> CommandResult:
        try:
            await self._current().call("account/logout", wire.LogoutParams(), wire.EmptyResult)
        except (RpcError, ConnectionClosed) as error:
            return CommandResult(False, f"codex could not sign out: {error}")
        return CommandResult(True, "Signed out of codex.")

    async def describe(self) -> str:
        """Who codex is signed in as, in a line (`/account`).

        Raises:
            RpcError, ConnectionClosed: codex could not say.
        """
        read = await self.read()
        account = read.account
        if account is None:
            needs = (
                " codex needs one for its OpenAI models: /login"
                if read.requires_openai_auth
                else ""
            )
            return f"Not signed in.{needs}"
        who = f" as {account.email}" if account.email else ""
        plan = f" ({account.plan_type})" if account.plan_type else ""
        way = ACCOUNT_TYPES.get(account.type, account.type)
        return f"Signed in with {way}{who}{plan}."
