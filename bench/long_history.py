"""A conversation of 50,000 items, through the app on the real engine and the scripted model:

- restart → its latest items painted (the store holds it; codex is started anew; the latest
  few hundred items are read from codex, older ones as the view goes back);
- a page up (PageUp) → the frame that shows it painted, forty of them from the end (those
  that reach the first entry drawn draw a few screens of older ones first);
- a step further back (ctrl+home: 150 earlier items get widgets, read from codex when fewer
  are left) → painted, each step taken once the one before has drawn all it leaves for after
  its frame (as a person takes them, reading between two);
- the app's memory once its latest are painted, and after twenty steps back.

Run: `.venv/bin/python -m bench.long_history`. Prints a table and merges into
bench/results.json.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from textual.pilot import Pilot

from bench.figures import figure, print_table, save, scratch_root
from bench.load_figures import latest_painted, many_items
from bench.scale import painted
from bench.tui_figures import rss_mib, the_app
from engine.conversations.history_pages import FIRST_ITEMS
from engine.scripted_model import run_scripted_model
from tui.entries import Entry
from tui.widgets.transcript import MOST_WIDGETS, Transcript

ITEMS = 50_000
RUNS = 2
PAGES = 40
STEPS_BACK = 20


@dataclass
class Reading:
    """What one reopening measured."""

    opened_ms: float = 0.0
    pages_ms: list[float] = field(default_factory=list)
    steps_ms: list[float] = field(default_factory=list)
    rss_opened: float = 0.0
    rss_back: float = 0.0


async def read_back(root: Path, store: Path) -> Reading:
    """Start the app on `store`, wait for the latest painted, page up, then step back."""
    reading = Reading()
    async with run_scripted_model() as model:
        started = time.perf_counter()
        async with the_app(root, model, store) as (app, pilot):
            transcript = await latest_painted(app, pilot, FIRST_ITEMS)
            reading.opened_ms = (time.perf_counter() - started) * 1000
            await pilot.pause(0.5)  # the rest of the first window, after its first frame
            reading.rss_opened = rss_mib()
            for _ in range(PAGES):
                if transcript.scroll_y <= 0:
                    break
                began = time.perf_counter()
                await app.main.action_page(-1)
                reading.pages_ms.append((await painted(app) - began) * 1000)
            for _ in range(STEPS_BACK):
                await settled(pilot, transcript)
                began = time.perf_counter()
                await app.main.action_show_earlier()
                reading.steps_ms.append((await painted(app) - began) * 1000)
            await pilot.pause(0.5)
            reading.rss_back = rss_mib()
    return reading


async def settled(pilot: Pilot[None], transcript: Transcript) -> None:
    """Until the transcript has drawn what the step before left to draw after its frame
    (the entries under the view), and the window is back within its bound: each step is
    measured as a person takes it, looking at the one before first."""
    while not transcript.settled or len(drawn(transcript)) > MOST_WIDGETS:
        await pilot.pause(0.01)
    await pilot.pause()


def drawn(transcript: Transcript) -> list[Entry]:
    return [entry for entry in transcript.entries if entry.widget is not None]


def main() -> None:
    figures: dict[str, dict[str, Any]] = {}
    with scratch_root() as root:
        store = root / "store.sqlite3"
        began = time.perf_counter()
        anyio.run(many_items, root, store, ITEMS)
        print(f"({ITEMS:,} items made in {time.perf_counter() - began:.0f} s)", flush=True)
        readings = [anyio.run(read_back, root, store) for _ in range(RUNS)]
    name = f"{ITEMS:,} items"
    figures[f"{name}: restart → latest painted"] = figure([r.opened_ms for r in readings], "ms")
    figures[f"{name}: a page up → painted"] = figure(
        [ms for r in readings for ms in r.pages_ms], "ms"
    )
    figures[f"{name}: 150 earlier items → painted"] = figure(
        [ms for r in readings for ms in r.steps_ms], "ms"
    )
    figures[f"{name}: RSS, latest painted"] = figure([r.rss_opened for r in readings], "MiB")
    figures[f"{name}: RSS, {STEPS_BACK} steps back"] = figure([r.rss_back for r in readings], "MiB")
    print_table(figures)
    save(figures, {})


if __name__ == "__main__":
    main()
