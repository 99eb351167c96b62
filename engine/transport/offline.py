"""Running codex on the scripted model: no account, no network."""

from __future__ import annotations

import socket
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

from engine.settings import ProviderSettings, Settings

OFFLINE_PROVIDER = "codex-deck-offline"
OFFLINE_MODEL = "codex-deck-scripted"
OFFLINE_NOISE = (f"Model metadata for `{OFFLINE_MODEL}` not found",)
"""Warnings codex gives about the scripted model itself, which tell the user nothing."""


class ModelServer(Protocol):
    @property
    def base_url(self) -> str: ...


def local_url(port: int) -> str:
    """The provider base URL of a model server on 127.0.0.1 at `port`."""
    return f"http://127.0.0.1:{port}/v1"


@dataclass(frozen=True, slots=True, eq=False)
class DemoPlace:
    """Where the demo runs: a throw-away directory with codex's home and the workspace, and
    the scripted model's socket, listening already (so codex can be started with its address
    before the model runs)."""

    scratch: tempfile.TemporaryDirectory[str]
    listener: socket.socket
    port: int

    @classmethod
    def make(cls) -> DemoPlace:
        scratch = tempfile.TemporaryDirectory(prefix="codex-deck-demo-")
        listener = socket.create_server(("127.0.0.1", 0))
        place = cls(scratch, listener, listener.getsockname()[1])
        place.home.mkdir()
        place.workspace.mkdir()
        return place

    @property
    def home(self) -> Path:
        """CODEX_HOME."""
        return Path(self.scratch.name, "codex-home")

    @property
    def workspace(self) -> Path:
        return Path(self.scratch.name, "workspace")

    @property
    def base_url(self) -> str:
        return local_url(self.port)

    def settings(self, base: Settings) -> Settings:
        """`base` with codex run here, on the scripted model at this place's socket."""
        return offline_settings(base, self, self.home)

    def close(self) -> None:
        self.listener.close()
        self.scratch.cleanup()


def is_offline(settings: Settings) -> bool:
    """Whether `settings` run codex on the offline scripted model (the demo's)."""
    return settings.codex.provider == OFFLINE_PROVIDER


def offline_settings(base: Settings, model: ModelServer, home: Path) -> Settings:
    """`base` with codex pointed at the scripted model, in its own CODEX_HOME.

    The scripted model answers at once or not at all, so retries are off; the plugin sync
    (which reaches for the network at start-up) is off too.
    """
    provider = ProviderSettings(
        base_url=model.base_url,
        request_max_retries=0,
        stream_max_retries=0,
        supports_websockets=False,
    )
    codex = replace(
        base.codex,
        provider=OFFLINE_PROVIDER,
        model=OFFLINE_MODEL,
        home=home,
        config=[*base.codex.config, "features.plugins=false"],
    )
    return replace(base, codex=codex, providers={**base.providers, OFFLINE_PROVIDER: provider})
