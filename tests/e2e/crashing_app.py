"""codex-deck's engine in a process of its own, for tests that kill it.

`python -m tests.e2e.crashing_app STORE CODEX_HOME WORKSPACE MODEL_URL TEXT` opens the engine
on the store, sends TEXT in a new conversation, prints `sent CONVERSATION SUBMISSION`, and
then runs until it is killed.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import anyio

from engine.engine import Engine
from engine.records.store import Store
from engine.settings import Settings
from engine.transport.offline import offline_settings


@dataclass(frozen=True)
class Model:
    base_url: str


async def main(store_path: Path, home: Path, workspace: Path, url: str, text: str) -> None:
    store = Store.open(store_path)
    settings = offline_settings(Settings(), Model(url), home)
    async with Engine.open(settings, cwd=workspace, store=store) as engine:
        conversation = await engine.new_conversation("Crashing")
        outcome = await engine.submit(conversation.id, text)
        print("sent", conversation.id, outcome.submission_id, flush=True)
        await anyio.sleep_forever()


if __name__ == "__main__":
    store_path, home, workspace, url, text = sys.argv[1:6]
    anyio.run(main, Path(store_path), Path(home), Path(workspace), url, text)
