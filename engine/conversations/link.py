"""The codex in use, and how it is: online, being started (or reached) again after it went
away or could not be reached at start, failed, or stopping with codex-deck. Whatever sends to
codex asks here first."""

from __future__ import annotations

from typing import Literal

import anyio
import msgspec

from engine.errors import ConnectionClosed
from engine.transport.appserver import AppServer

LinkStatus = Literal["online", "stopping", "failed"]


class Link(msgspec.Struct, eq=False):
    reached: AppServer | None
    """The codex in use: it changes when codex is started (or reached) again. None while
    codex has not been reached since codex-deck started (`unreached` says why)."""
    status: LinkStatus = "online"
    """failed: codex went away (it is being started again, or could not be)."""
    closing: bool = False
    """codex-deck is closing: nothing new starts."""
    shared: bool = False
    """codex runs on without codex-deck (attached to with --connect): closing codex-deck
    detaches, and stops nothing there."""
    back: anyio.Event = msgspec.field(default_factory=anyio.Event)
    """Unset while codex is being started (or reached) again after it went away; set when
    it is back, or will not be."""
    unreached: str = ""
    """Why codex could not be reached at start (while `reached` is None)."""
    host: str | None = None
    """The machine it runs on, by its name in `[hosts]` (None: the only codex there is)."""

    @property
    def server(self) -> AppServer:
        """The codex in use.

        Raises:
            ConnectionClosed: codex has not been reached since codex-deck started.
        """
        if self.reached is None:
            raise ConnectionClosed(self.unreached)
        return self.reached

    @property
    def coming_back(self) -> bool:
        """codex went away and is being started (or reached) again."""
        return self.status == "failed" and not self.back.is_set()

    def not_running(self) -> str | None:
        """Why nothing can be sent to codex now (None: it can)."""
        if self.status == "online":
            return None
        if self.reached is None:
            return self.unreached
        return self.reached.rpc.closed_reason or self.status
