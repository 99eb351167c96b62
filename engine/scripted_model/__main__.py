"""`python -m engine.scripted_model [PORT]`: serve the offline model until interrupted, for
pointing a codex (or codex-deck's `[providers]`) at it by hand. Prints its base URL."""

from __future__ import annotations

import contextlib
import sys

import anyio

from engine.scripted_model.server import run_scripted_model


async def serve(port: int) -> None:
    async with run_scripted_model(port=port) as model:
        print(model.base_url, flush=True)
        await anyio.sleep_forever()


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        anyio.run(serve, int(sys.argv[1]) if len(sys.argv) > 1 else 0)
