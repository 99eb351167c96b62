"""`python -m tests.e2e.hosts_world ROOT MODEL_URL`: the hosts of `test_hosts.machines` (an
app-server on a unix socket, codex over a local sshd) on the scripted model at MODEL_URL, for
an app started as a program. Prints their `[hosts]` tables as TOML, then `ready`, and keeps them
until its standard input closes."""

from __future__ import annotations

import json
import sys
from dataclasses import asdict
from pathlib import Path

import anyio

from engine.settings import HostSettings
from tests.e2e.test_hosts import machines


class Model:
    def __init__(self, base_url: str) -> None:
        self.base_url = base_url


def as_toml(hosts: dict[str, HostSettings]) -> str:
    """`[hosts.NAME]` tables (JSON strings and lists are TOML's too)."""
    tables = []
    for name, host in hosts.items():
        keys = {key: value for key, value in asdict(host).items() if value not in (None, [])}
        lines = [
            f"{key} = {json.dumps(str(v) if isinstance(v, Path) else v)}" for key, v in keys.items()
        ]
        tables.append(f"[hosts.{name}]\n" + "\n".join(lines) + "\n")
    return "\n".join(tables)


async def main(root: Path, model_url: str) -> None:
    async with machines(Model(model_url), root) as (there, _):
        print(as_toml(there.settings.hosts), flush=True)
        print("ready", flush=True)
        await anyio.wrap_file(sys.stdin.buffer).read()


if __name__ == "__main__":
    anyio.run(main, Path(sys.argv[1]), sys.argv[2])
