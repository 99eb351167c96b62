"""codex on another machine over ssh: ssh starts `codex app-server` there and carries its
JSON-RPC on ssh's own stdin and stdout. Nothing listens anywhere and no token is made: the
user's ssh keys and config decide who gets in."""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import unquote, urlsplit

from engine.settings import HostSettings
from engine.transport.process import AppServerProcess, spawn_command

SSH_OPTIONS = (
    "-T",
    "-o",
    "BatchMode=yes",
    "-o",
    "ConnectTimeout=10",
    "-o",
    "ServerAliveInterval=15",
    "-o",
    "ServerAliveCountMax=3",
)
"""No terminal and no prompt (a password or host-key question would wait for nobody); a
connection that cannot be made fails in 10 s, and one that goes silent is given up after
some 45 s, so the host is reached again."""


def ssh_argv(host: HostSettings, overrides: Sequence[str]) -> list[str]:
    """The ssh command line that runs `codex app-server` with `overrides` (`-c key=value`)
    on `host` (an ssh:// one)."""
    return ssh_command(host, app_server_there(host, overrides))


def app_server_there(host: HostSettings, overrides: Sequence[str]) -> str:
    """The shell command that runs `codex app-server` with `overrides` on `host`."""
    return " ".join([host.codex, "app-server", *(f"-c {shlex.quote(o)}" for o in overrides)])


def ssh_command(host: HostSettings, remote: str) -> list[str]:
    """The ssh command line that runs the shell command `remote` on `host`."""
    parts = urlsplit(host.url)
    assert parts.hostname is not None, "checked with the settings"
    destination = parts.hostname
    if parts.username:
        destination = f"{unquote(parts.username)}@{destination}"
    options = [os.path.expanduser(option) for option in host.ssh_options]
    port = ["-p", str(parts.port)] if parts.port is not None else []
    return ["ssh", *SSH_OPTIONS, *options, *port, "--", destination, remote]


async def over_ssh(host: HostSettings, overrides: Sequence[str]) -> AppServerProcess:
    """`codex app-server` started on `host` over a new ssh connection, as a transport (its
    close ends ssh, and with its input codex there ends too)."""
    return await app_server_over_ssh(host, app_server_there(host, overrides))


async def app_server_over_ssh(host: HostSettings, remote: str) -> AppServerProcess:
    """The shell command `remote`, which runs `codex app-server`, run on `host` over a new
    ssh connection, as a transport."""
    spawned = spawn_command(ssh_command(host, remote), Path.home(), dict(os.environ))
    process = await AppServerProcess.adopt(spawned)
    process.name = f"ssh to {urlsplit(host.url).hostname} (codex app-server there)"
    return process
