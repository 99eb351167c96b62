"""`/threads` over a CODEX_HOME of 10,000 threads, side by side with the Codex TUI's resume
picker on the same home, in one run:

- `/threads` typed in the app → its first rows painted (the app up, codex up);
- the answers under it: codex listing 20 threads from its index of them (as `/threads` asks)
  and from their rollout files (as it asked before, and as it reads after the list is shown);
- the Codex TUI's resume picker (`codex resume`, 0.163, and the npm 0.171 when `.ci/npm` has
  it): start → its first rows on screen (its start included: the picker is how it starts);
- codex's first start on those threads before it has indexed them (one run: it indexes them
  all then, once).

The threads: one made through the real engine on the scripted model, and its rollout file
copied 9,999 times with new ids, dates and first messages, as years of work leave them; codex
indexes the copies on its first start, as it does a CODEX_HOME from before its index.

Run: `.venv/bin/python -m bench.threads`. Prints a table and merges into bench/results.json.
"""

from __future__ import annotations

import datetime
import re
import subprocess
import sys
import time
import uuid
from functools import partial
from pathlib import Path
from typing import Any

import anyio
from textual import events

from bench.codex_tui import Pty, codex_argv, npm_codex
from bench.figures import figure, print_table, save, scratch_root, until
from bench.scale import painted
from bench.tui_figures import the_app
from engine import protocol as wire
from engine.engine import Engine
from engine.events import TurnCompleted
from engine.scripted_model import ScriptedModel, run_scripted_model
from engine.settings import Settings
from engine.transport.appserver import AppServer, spawn_app_server
from engine.transport.binary import find_codex
from engine.transport.launch import launch_for
from engine.transport.offline import offline_settings
from tui.widgets.composer import Composer
from tui.widgets.notes import NoticeLine
from tui.widgets.transcript import Transcript

THREADS = 10_000
RUNS = 5
ROW = "thread number"
"""Every copy's first message starts so; a row of the list shows it."""


async def one_thread(model: ScriptedModel, home: Path, workspace: Path) -> None:
    """One thread of one turn, made through the engine."""
    settings = offline_settings(Settings(), model, home)
    async with Engine.open(settings, cwd=workspace) as engine:
        events_seen = engine.events()
        conversation = await engine.new_conversation("the first")
        await engine.submit(conversation.id, "hello")
        async for event in events_seen:
            if isinstance(event, TurnCompleted):
                break


def copy_threads(home: Path, count: int) -> None:
    """`count` copies of the home's one rollout file: new ids, a day apart at most, and first
    messages of their own."""
    [rollout] = (home / "sessions").rglob("rollout-*.jsonl")
    found = re.search(r"-([0-9a-f-]{36})\.jsonl$", rollout.name)
    assert found is not None
    text = rollout.read_text()
    first = datetime.datetime(2024, 1, 1, tzinfo=datetime.UTC)
    for number in range(count):
        thread = str(uuid.uuid4())
        made = first + datetime.timedelta(minutes=97 * number)
        folder = home / "sessions" / f"{made:%Y/%m/%d}"
        folder.mkdir(parents=True, exist_ok=True)
        body = text.replace(found.group(1), thread).replace('"hello"', f'"{ROW} {number}"')
        (folder / f"rollout-{made:%Y-%m-%dT%H-%M-%S}-{thread}.jsonl").write_text(body)


async def listing_ms(server: AppServer, indexed: bool) -> float:
    """Milliseconds for codex to list 20 threads as /threads asks (from its index, or from
    the rollout files)."""
    listed, took = await listing(server, indexed)
    assert len(listed) == 20
    return took


async def listing(server: AppServer, indexed: bool) -> tuple[list[wire.Thread], float]:
    """Codex's 20 newest threads as /threads asks for them (from its index, or from the
    rollout files), and the milliseconds it took."""
    params = wire.ThreadListParams(
        limit=20,
        sort_key="updated_at",
        source_kinds=wire.TOP_LEVEL_SOURCES,
        use_state_db_only=indexed or None,
    )
    began = time.perf_counter()
    listed = await server.call("thread/list", params, wire.ThreadListResult)
    return listed.data, (time.perf_counter() - began) * 1000


async def on_the_wire(home: Path, workspace: Path) -> tuple[float, list[float], list[float]]:
    """Milliseconds from codex's first start to its first list of 20 (it indexes the threads
    first), then the listings' milliseconds from the index and from the rollout files."""
    async with run_scripted_model() as model:
        settings = offline_settings(Settings(), model, home)
        launch = launch_for(settings, find_codex(None).path, workspace)
        began = time.perf_counter()
        async with spawn_app_server(launch) as server:
            listed, _ = await listing(server, indexed=True)
            first = (time.perf_counter() - began) * 1000
            assert len(listed) == 20
            indexed = [await listing_ms(server, indexed=True) for _ in range(RUNS)]
            scanned = [await listing_ms(server, indexed=False) for _ in range(RUNS)]
    return first, indexed, scanned


async def typed(root: Path) -> list[float]:
    """Milliseconds from `/threads` and Enter handed to the app (as the terminal driver hands
    them) to the end of the frame that shows the list's first rows, RUNS times."""
    took: list[float] = []
    async with run_scripted_model() as model, the_app(root, model) as (app, _):
        transcript = app.main.view.transcript(app.main.current or "")
        assert transcript is not None
        for _ in range(RUNS):
            shown = rows_shown(transcript)
            app.main.query_one(Composer).text = "/threads"
            began = time.perf_counter()
            app.post_message(events.Key("enter", "\r"))
            await until(partial(more_rows, transcript, shown), every=0.001)
            took.append((await painted(app) - began) * 1000)
            await anyio.sleep(1)  # codex reads the rollout files after the list is shown
    return took


def more_rows(transcript: Transcript, than: int) -> bool:
    return rows_shown(transcript) > than


def rows_shown(transcript: Transcript) -> int:
    return sum(ROW in notice.text for notice in transcript.query(NoticeLine))


def resume_picker(binary: Path, home: Path, workspace: Path, url: str) -> float:
    """Milliseconds from starting the Codex TUI's resume picker to its first rows shown."""
    argv = codex_argv(url, binary)
    app = Pty([argv[0], "resume", *argv[1:]], {"CODEX_HOME": str(home)}, workspace)
    try:
        return app.wait_for(ROW.encode()) * 1000
    finally:
        app.close()


async def made(root: Path) -> None:
    """The one thread, made in root/home."""
    async with run_scripted_model() as model:
        await one_thread(model, root / "home", root / "ws")


def main() -> None:
    figures: dict[str, dict[str, Any]] = {}
    name = f"{THREADS:,} threads"
    with scratch_root() as root:
        home, workspace = root / "home", root / "ws"
        anyio.run(made, root)
        copy_threads(home, THREADS - 1)
        for index in home.glob("state_*.sqlite*"):
            index.unlink()  # as in a CODEX_HOME from before codex's index
        first, indexed, scanned = anyio.run(on_the_wire, home, workspace)
        figures[f"{name}: codex's first start → first list"] = figure([first], "ms")
        figures[f"{name}: codex lists 20 from its index"] = figure(indexed, "ms")
        figures[f"{name}: codex lists 20 from the rollout files"] = figure(scanned, "ms")
        figures[f"{name}: /threads → first rows painted"] = figure(anyio.run(typed, root), "ms")
        model = subprocess.Popen(
            [sys.executable, "-m", "engine.scripted_model"], stdout=subprocess.PIPE, text=True
        )
        try:
            assert model.stdout is not None
            url = model.stdout.readline().strip()
            pickers = {"Codex TUI": find_codex(None).path, "Codex TUI 0.171": npm_codex()}
            for label, binary in pickers.items():
                if binary is not None:
                    runs = [resume_picker(binary, home, workspace, url) for _ in range(RUNS)]
                    figures[f"{name}: {label} resume, start → first rows"] = figure(runs, "ms")
        finally:
            model.kill()
            model.wait()
    print_table(figures)
    save(figures, {})


if __name__ == "__main__":
    main()
