"""`python -m engine.scripted_model [PORT] [--requests FILE] [--ids unique|reused|none]`: serve
the offline model until interrupted, for pointing a codex (or codex-deck's `[providers]`) at it
by hand. Prints its base URL. With `--requests`, each request to `/responses` is appended to
FILE as a JSON line (the user's latest text, and how many tool outputs follow it), for
counting what was asked. `--ids` names its items as other providers do (see `Ids`)."""

from __future__ import annotations

import argparse
import contextlib
import json
import socket
import sys
from pathlib import Path
from typing import get_args

import anyio

from engine.scripted_model.server import Ids, ScriptedModel, run_scripted_model


async def serve(port: int, requests: Path | None, ids: Ids) -> None:
    async with run_scripted_model(port=port, ids=ids) as model:
        print(model.base_url, flush=True)
        if requests is None:
            await anyio.sleep_forever()
        else:
            await log_requests(model, requests)


async def serve_for_parent(fd: int) -> None:
    """Serve on the listening socket `fd` (the demo's, made by codex-deck) until the standard
    input closes: codex-deck closed the demo, or is gone."""
    async with run_scripted_model(bound=socket.socket(fileno=fd)):
        await anyio.wrap_file(sys.stdin.buffer).read()


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
    arguments = parser.parse_args()
    with contextlib.suppress(KeyboardInterrupt):
        if arguments.listen_fd is not None:
            anyio.run(serve_for_parent, arguments.listen_fd)
        else:
            anyio.run(serve, arguments.port, arguments.requests, arguments.ids)


if __name__ == "__main__":
    main()
