"""A local sshd for the tests: listening on 127.0.0.1 only, with a throw-away host key and
user key, for the current user, stopped at the end. No host outside this machine is used."""

from __future__ import annotations

import getpass
import os
import shutil
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import anyio

from tests.e2e.test_attach import free_port, logging_process

SSHD = Path("/usr/sbin/sshd")
START_SECONDS = 10


@dataclass(frozen=True)
class Sshd:
    """A running sshd and how to reach it: `ssh -F config` to `user@127.0.0.1:port`."""

    port: int
    user: str
    config: Path
    """An ssh client config that trusts its host key and uses its user key, only."""
    process: anyio.abc.Process

    @property
    def url(self) -> str:
        return f"ssh://{self.user}@127.0.0.1:{self.port}"


def _keygen(path: Path) -> str:
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(path)],
        check=True,
        stdin=subprocess.DEVNULL,
    )
    return path.with_suffix(".pub").read_text().strip()


def _prepare(place: Path) -> tuple[int, str, Path, Path]:
    """The keys and configs of an sshd and its client under `place`: its port, the user,
    the server's config and the client's."""
    assert SSHD.is_file(), "this test needs sshd (.ci/run installs openssh-server)"
    assert shutil.which("ssh"), "this test needs ssh (.ci/run installs openssh-client)"
    place.mkdir(mode=0o700, parents=True, exist_ok=True)
    host_key = _keygen(place / "host_key")
    user_key = _keygen(place / "user_key")
    (place / "authorized_keys").write_text(user_key + "\n")
    port, user = free_port(), getpass.getuser()
    server_config = place / "sshd_config"
    server_config.write_text(
        "\n".join(
            [
                f"Port {port}",
                "ListenAddress 127.0.0.1",
                f"HostKey {place / 'host_key'}",
                f"AuthorizedKeysFile {place / 'authorized_keys'}",
                f"AllowUsers {user}",
                "PermitRootLogin prohibit-password",
                "PasswordAuthentication no",
                "KbdInteractiveAuthentication no",
                "UsePAM no",
                "StrictModes no",
                "PidFile none",
                "LogLevel INFO",
                "",
            ]
        )
    )
    (place / "known_hosts").write_text(f"[127.0.0.1]:{port} {host_key}\n")
    client_config = place / "ssh_config"
    client_config.write_text(
        "\n".join(
            [
                "Host *",
                f"  IdentityFile {place / 'user_key'}",
                "  IdentitiesOnly yes",
                f"  UserKnownHostsFile {place / 'known_hosts'}",
                "  StrictHostKeyChecking yes",
                "",
            ]
        )
    )
    if os.geteuid() == 0:
        Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)  # its privilege separation
    return port, user, server_config, client_config


@asynccontextmanager
async def sshd(place: Path) -> AsyncIterator[Sshd]:
    """An sshd whose files are under `place` (made here)."""
    port, user, server_config, client_config = await anyio.to_thread.run_sync(_prepare, place)
    argv = [str(SSHD), "-D", "-e", "-f", str(server_config)]
    async with logging_process(argv, None, "Server listening on 127.0.0.1", START_SECONDS) as ps:
        yield Sshd(port, user, client_config, ps)
