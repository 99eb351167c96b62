"""Running codex on the scripted model: no account, no network."""

from __future__ import annotations

import socket
import subprocess
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Protocol

import msgspec

from engine.settings import ProviderSettings, Settings

OFFLINE_PROVIDER = "codex-deck-offline"
OFFLINE_MODEL = "codex-deck-scripted"
OFFLINE_NOISE = (f"Model metadata for `{OFFLINE_MODEL}` not found",)
"""Warnings codex gives about the scripted model itself, which tell the user nothing."""
MODEL_EXIT_SECONDS = 2.0
"""How long the demo's model may take to end once its place closes."""


class ModelServer(Protocol):
    @property
    def base_url(self) -> str: ...


def local_url(port: int) -> str:
    """The provider base URL of a model server on 127.0.0.1 at `port`."""
    return f"http://127.0.0.1:{port}/v1"


class DemoPlace(msgspec.Struct, frozen=True, eq=False):
    """Where the demo runs: a throw-away directory with codex's home and the workspace, and
    the scripted model, serving on a socket that listens already (so codex can be started
    with its address while the model starts). The model runs in a process of its own (its
    imports and its streaming take nothing of the app's time); it ends with the place, or
    as soon as the process that made the place is gone, and removes the place as it ends."""

    scratch: tempfile.TemporaryDirectory[str]
    listener: socket.socket
    port: int
    model: subprocess.Popen[bytes]

    @classmethod
    def make(cls) -> DemoPlace:
        """Raises: OSError: the place or its model could not be made."""
        # The model removes the place as it ends (the app killed cannot): cleaning up after
        # it finds nothing left.
        scratch = tempfile.TemporaryDirectory(prefix="codex-deck-demo-", ignore_cleanup_errors=True)
        listener = socket.create_server(("127.0.0.1", 0))
        fd = listener.fileno()
        try:
            model = subprocess.Popen(
                [
                    *(sys.executable, "-m", "engine.scripted_model"),
                    *("--listen-fd", str(fd), "--place", scratch.name),
                ],
                pass_fds=(fd,),
                stdin=subprocess.PIPE,  # closed as the place is: the model ends
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,  # the terminal's ctrl+c is the app's, not the model's
            )
        except OSError:
            listener.close()
            scratch.cleanup()
            raise
        place = cls(scratch, listener, listener.getsockname()[1], model)
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
        if self.model.stdin is not None:
            self.model.stdin.close()
        try:
            self.model.wait(MODEL_EXIT_SECONDS)
        except subprocess.TimeoutExpired:
            self.model.kill()
            self.model.wait()
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
