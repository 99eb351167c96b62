"""`python -m engine.scripted_model [PORT] [--requests FILE] [--ids unique|reused|none]`: serve
the offline model until interrupted, for pointing a codex (or codex-deck's `[providers]`) at it
by hand. Prints its base URL. With `--requests`, each request to `/responses` is appended to
FILE as a JSON line (the user's latest text, and how many tool outputs follow it), for
counting what was asked. `--ids` names its items as other providers do (see `Ids`)."""

from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import socket
import sys
import time
from pathlib import Path
from typing import get_args

import anyio

from engine.scripted_model.server import Ids, ScriptedModel, run_scripted_model

PLACE_TRIES = 5
PLACE_RETRY_SECONDS = 0.5
USERS_SECONDS = 15.0
"""How long the place's removal waits for the codex whose home it holds to end."""
USERS_POLL_SECONDS = 0.1


async def serve(port: int, requests: Path | None, ids: Ids) -> None:
    async with run_scripted_model(port=port, ids=ids) as model:
        print(model.base_url, flush=True)
        if requests is None:
            await anyio.sleep_forever()
        else:
            await log_requests(model, requests)


async def serve_for_parent(fd: int, place: Path | None) -> None:
    """Serve on the listening socket `fd` (the demo's, made by codex-deck) until the standard
    input closes: codex-deck closed the demo, or is gone; then remove the demo's `place`
    (codex-deck killed cannot)."""
    async with run_scripted_model(bound=socket.socket(fileno=fd)):
        await anyio.wrap_file(sys.stdin.buffer).read()
    if place is not None:
        await anyio.to_thread.run_sync(remove, place)


def remove(place: Path) -> None:
    """Remove the directory once the codex whose home is in it has ended (it may still be
    writing there as it ends: a loaded machine was seen to take seconds), tried again."""
    deadline = time.monotonic() + USERS_SECONDS
    while users(place) and time.monotonic() < deadline:
        time.sleep(USERS_POLL_SECONDS)
    for _ in range(PLACE_TRIES):
        shutil.rmtree(place, ignore_errors=True)
        if not place.exists():
            return
        time.sleep(PLACE_RETRY_SECONDS)


def users(place: Path) -> list[int]:
    """The processes whose CODEX_HOME is in `place` (none found where there is no /proc)."""
    home = f"CODEX_HOME={place}".encode()
    found = []
    with contextlib.suppress(OSError):
        for entry in Path("/proc").iterdir():
            with contextlib.suppress(OSError):
                environment = (entry / "environ").read_bytes().split(b"\0")
                if entry.name.isdigit() and any(v.startswith(home) for v in environment):
                    found.append(int(entry.name))
    return found


async def log_requests(model: ScriptedModel, path: Path) -> None:
    written = 0
    while True:
        received = await model.wait_for_requests(written + 1)
        with path.open("a", encoding="utf-8") as log:
            for request in received[written:]:
                asked = {"user_text": request.user_text, "tools": request.tool_calls_answered}
                log.write(json.dumps(asked) + "\n")
        written = len(received)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m engine.scripted_model")
    parser.add_argument("port", nargs="?", type=int, default=0)
    parser.add_argument("--requests", type=Path, help="append each request to this file")
    parser.add_argument(
        "--ids",
        choices=get_args(Ids),
        default="unique",
        help="how items are named: unique (as OpenAI), reused in every response, or none",
    )
    parser.add_argument(
        "--listen-fd",
        type=int,
        help="serve on this listening socket (inherited) until the standard input closes",
    )
    parser.add_argument(
        "--place",
        type=Path,
        help="with --listen-fd: remove this directory once the standard input closes",
    )
    arguments = parser.parse_args()
    with contextlib.suppress(KeyboardInterrupt):
        if arguments.listen_fd is not None:
            anyio.run(serve_for_parent, arguments.listen_fd, arguments.place)
        else:
            anyio.run(serve, arguments.port, arguments.requests, arguments.ids)


if __name__ == "__main__":
    main()
