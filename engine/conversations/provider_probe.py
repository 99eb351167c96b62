"""When codex cannot reach the model provider at all, check the provider's address from this
machine (where codex runs, when codex-deck started it): a port that refuses connections, or a
host that cannot be found, is named once, instead of codex's endless "waiting for network"."""

from __future__ import annotations

import contextlib
import socket
from urllib.parse import urlsplit

import anyio

from engine import protocol as wire
from engine.conversations.conversation import Conversation
from engine.conversations.core import Core
from engine.errors import ConnectionClosed, RpcError

PROBE_SECONDS = 3.0
DEFAULT_PORTS = {"http": 80, "https": 443}


async def unreachable(url: str) -> str | None:
    """Why a connection to `url`'s host and port cannot be made (None: it can, or the
    check did not finish in time)."""
    parts = urlsplit(url)
    host = parts.hostname
    if host is None:
        return None
    port = parts.port or DEFAULT_PORTS.get(parts.scheme)
    if port is None:
        return None
    try:
        # In a thread: the socket module says what failed (anyio folds it into "All
        # connection attempts failed").
        opened = await anyio.to_thread.run_sync(
            socket.create_connection, (host, port), PROBE_SECONDS
        )
    except ConnectionRefusedError:
        return "connection refused"
    except TimeoutError:
        return None  # slow, not refused: codex's own words stand
    except OSError as error:
        return (error.strerror or str(error)).lower()
    opened.close()
    return None


class ProviderProbe:
    """Checks a conversation's model provider once a turn, when codex could not reach it."""

    def __init__(self, core: Core) -> None:
        self._core = core
        self._checked: set[str] = set()
        """The turns whose provider was checked."""

    def check(self, conversation: Conversation) -> None:
        """Check the provider of the conversation's running turn (in the background)."""
        turn_id = conversation.turn_id
        if turn_id is None or turn_id in self._checked or self._core.link.shared:
            return  # a shared codex may run on another machine: its network is not ours
        self._checked.add(turn_id)
        self._core.tasks.start_soon(self._check, conversation, turn_id)

    async def _check(self, conversation: Conversation, turn_id: str) -> None:
        name = conversation.provider or (
            conversation.thread.model_provider if conversation.thread is not None else None
        )
        if name is None:
            return
        url = await self._base_url(conversation, name)
        if url is None:
            return
        why = await unreachable(url)
        if why is None or conversation.turn_id != turn_id:
            return
        self._core.notices.say(
            conversation,
            "error",
            f"The model provider '{name}' cannot be reached: {why} at {url}. codex keeps "
            "retrying while it waits; esc stops the turn. `[providers]` in the settings (or "
            "codex's config) sets where it is.",
        )

    async def _base_url(self, conversation: Conversation, name: str) -> str | None:
        """Where the provider is: in codex-deck's settings, else in codex's config (None for
        codex's built-in providers, which are on the internet)."""
        provider = self._core.settings.providers.get(name)
        if provider is not None:
            return provider.base_url
        with contextlib.suppress(RpcError, ConnectionClosed):
            params = wire.ConfigReadParams(cwd=conversation.cwd)
            read = await self._core.server.call("config/read", params, wire.ConfigReadResult)
            providers = read.config.get("model_providers")
            found = providers.get(name) if isinstance(providers, dict) else None
            url = found.get("base_url") if isinstance(found, dict) else None
            return url if isinstance(url, str) else None
        return None
