"""Where a side chat's private codex runs: on this machine beside the conversation's codex, or
on the conversation's ssh host (started there over a connection of its own), in a scratch
directory removed as it ends; and the check, made where it runs, that this codex has every
protocol field a side chat relies on."""

from __future__ import annotations

import json
import shlex
import subprocess
import tempfile
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit

import anyio
import msgspec

from engine.settings import HostSettings
from engine.side_chats.isolation import SideChatUnsupported, check_support, missing_in, refused
from engine.transport.appserver import AppServer, open_app_server, spawn_app_server
from engine.transport.launch import Launch
from engine.transport.ssh import app_server_over_ssh, app_server_there, ssh_command

CHECK_SECONDS = 60.0
"""How long the check over ssh may take (ssh itself gives up on a host after 10 s)."""
SEPARATOR = "\x1e"
"""Between the two schema files the check over ssh prints (octal 036 to printf)."""


class Started(msgspec.Struct, frozen=True):
    """A private codex, running."""

    server: AppServer
    pid: int | None
    """Its process here (over ssh: ssh's)."""
    scratch: Path | None
    """Its working directory, when it is on this machine."""


class PrivateCodex(Protocol):
    """How to start a side chat's private codex where the conversation's codex runs."""

    async def check(self) -> None:
        """Raises SideChatUnsupported when this codex lacks a field side chats need."""

    def start(self, overrides: tuple[str, ...]) -> AbstractAsyncContextManager[Started]:
        """The private codex with `overrides` added, running until left."""


class HereCodex(msgspec.Struct, frozen=True):
    """On this machine, as the conversation's codex is started (`launch`)."""

    launch: Launch

    async def check(self) -> None:
        await check_support(self.launch.binary, self.launch.codex_home)

    @asynccontextmanager
    async def start(self, overrides: tuple[str, ...]) -> AsyncIterator[Started]:
        with tempfile.TemporaryDirectory(prefix="codex-deck-side-") as scratch:
            private = msgspec.structs.replace(
                self.launch, cwd=Path(scratch), overrides=(*self.launch.overrides, *overrides)
            )
            async with spawn_app_server(private) as server:
                yield Started(server, getattr(server.transport, "pid", None), Path(scratch))


class SshCodex(msgspec.Struct, frozen=True):
    """On an ssh host, started over a connection of its own with the host's `overrides`."""

    host: HostSettings
    overrides: tuple[str, ...]

    async def check(self) -> None:
        codex = self.host.codex
        script = (
            'd=$(mktemp -d "${TMPDIR:-/tmp}/codex-deck-schema-XXXXXX") || exit 1\n'
            f'{codex} app-server generate-json-schema --experimental --out "$d" '
            ">/dev/null 2>&1\n"
            "s=$?\n"
            'if [ "$s" -eq 0 ]; then cat "$d/v2/ThreadForkParams.json"; '
            "printf '\\n\\036\\n'; "
            'cat "$d/v2/ThreadForkResponse.json"; fi\n'
            'rm -rf "$d"\n'
            'exit "$s"\n'
        )
        argv = ssh_command(self.host, "sh -c " + shlex.quote(script))
        where = urlsplit(self.host.url).hostname
        with anyio.move_on_after(CHECK_SECONDS) as waited:
            done = await anyio.run_process(
                argv, check=False, stdin=subprocess.DEVNULL, stderr=subprocess.PIPE
            )
        if waited.cancelled_caught:
            raise SideChatUnsupported(
                f"{where} did not say in {CHECK_SECONDS:.0f} s whether its codex can do side "
                "chats; no side chat was opened."
            )
        if done.returncode == 255:
            said = done.stderr.decode(errors="replace").strip().splitlines()
            raise SideChatUnsupported(
                f"Could not reach {where} over ssh to start a side chat there"
                + (f": {said[-1]}" if said else "")
            )
        if done.returncode != 0:
            raise SideChatUnsupported(
                f"The codex on {where} could not describe its protocol (exit "
                f"{done.returncode}), so side chats are off there: update Codex on {where}."
            )
        fork, _, response = done.stdout.decode(errors="replace").partition(SEPARATOR)
        missing = missing_in(_object(fork), _object(response))
        if missing:
            raise refused(missing)

    @asynccontextmanager
    async def start(self, overrides: tuple[str, ...]) -> AsyncIterator[Started]:
        codex = app_server_there(self.host, (*self.overrides, *overrides))
        script = (
            'd=$(mktemp -d "${TMPDIR:-/tmp}/codex-deck-side-XXXXXX") || exit 1\n'
            'cd "$d" || exit 1\n'
            f"{codex}\n"
            "s=$?\n"
            'cd / && rm -rf "$d"\n'
            'exit "$s"\n'
        )
        transport = await app_server_over_ssh(self.host, "sh -c " + shlex.quote(script))
        async with open_app_server(transport) as server:
            yield Started(server, getattr(transport, "pid", None), None)


def _object(text: str) -> dict[str, Any]:
    try:
        loaded = json.loads(text)
    except ValueError:
        return {}
    return loaded if isinstance(loaded, dict) else {}
