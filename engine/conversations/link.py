"""The codex in use, and how it is: online, being started (or reached) again after it went
away, failed, or stopping with codex-deck. Whatever sends to codex asks here first."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import anyio

from engine.transport.appserver import AppServer

LinkStatus = Literal["online", "stopping", "failed"]


@dataclass(eq=False)
class Link:
    server: AppServer
    """The codex in use: it changes when codex is started (or reached) again."""
    status: LinkStatus = "online"
    """failed: codex went away (it is being started again, or could not be)."""
    closing: bool = False
    """codex-deck is closing: nothing new starts."""
    shared: bool = False
    """codex runs on without codex-deck (attached to with --connect): closing codex-deck
    detaches, and stops nothing there."""
    back: anyio.Event = field(default_factory=anyio.Event)
    """Unset while codex is being started (or reached) again after it went away; set when
    it is back, or will not be."""

    @property
    def coming_back(self) -> bool:
        """codex went away and is being started (or reached) again."""
        return self.status == "failed" and not self.back.is_set()

    def not_running(self) -> str | None:
        """Why nothing can be sent to codex now (None: it can)."""
        if self.status == "online":
            return None
        return self.server.rpc.closed_reason or self.status
