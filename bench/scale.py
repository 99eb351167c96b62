"""Figures at scale, through the app:

- 100 conversations of 2,000 items each, all open (the list holds them all, each transcript
  made): the process's memory once all were shown one after the other, and how long
  switching to one takes until the frame that shows it is painted.

The conversations come from a backend made for this that generates each one's events as it
plays them and keeps none: what is measured is what the app holds, not the recording's copy
(a replay keeps its recording; the engine keeps a trace of each conversation, bounded per
turn but not yet in turns, which this does not measure).

Run: `.venv/bin/python -m bench.scale`. Prints a table and merges into bench/results.json.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterator
from typing import Any

import anyio

from bench.figures import compile_sources, figure, machine_speed, print_table, save
from bench.tui_figures import conversation_events, rss_mib
from engine.events import ConversationUpdated, EngineEvent
from engine.replay import ReplayBackend, playing
from engine.settings import Settings
from tui.app import CodexDeckApp

CONVERSATIONS = 100
ITEMS = 2000
SWITCHES = 40


class Generated(ReplayBackend):
    """Plays conversations made as they are played: only their first states are kept."""

    def __init__(self, conversations: list[Iterator[EngineEvent]]) -> None:
        firsts = [next(events) for events in conversations]
        super().__init__(firsts)
        self._rest = conversations
        self.taken: Callable[[str], bool] = lambda conversation_id: True
        """Whether the app has taken a conversation played (the next waits for it)."""

    async def play(self) -> None:
        await self._subscribed.wait()
        self._publish(len(self._events))
        for first, events in zip(self._events, self._rest, strict=True):
            for event in events:
                if isinstance(event, ConversationUpdated):
                    self._infos[event.info.id] = event.info
                self._fanout.publish(event)
            self._fanout.flush()
            while not self.taken(first.conversation_id or ""):  # noqa: ASYNC110
                await anyio.sleep(0.01)
        self._fanout.close()


def conversations(count: int, items: int) -> list[Iterator[EngineEvent]]:
    return [conversation_events(items, number + 1) for number in range(count)]


async def painted(app: CodexDeckApp) -> float:
    """Until a frame painted after now has ended; when it ended (what comes after it, such as
    work that waits for that frame, is not counted)."""
    frames = app.main.painted
    while app.main.painted <= frames:  # noqa: ASYNC110 - polling is the measure
        await anyio.sleep(0.001)
    return app.main.painted_at


async def many_open() -> tuple[float, float, list[float]]:
    """RSS (MiB) before the app, after every conversation was shown once, and the switches'
    milliseconds to the painted frame."""
    before = rss_mib()
    backend = Generated(conversations(CONVERSATIONS, ITEMS))
    app = CodexDeckApp(Settings(), playing(backend))
    entries = ITEMS * 3 // 2

    def taken(conversation_id: str) -> bool:
        if not app.opened:
            return False
        transcript = app.main.view.transcript(conversation_id)
        return transcript is not None and len(transcript.entries) >= entries

    backend.taken = taken
    switches: list[float] = []
    async with app.run_test(size=(120, 40)) as pilot:
        while not app.opened:
            await pilot.pause()
        while not taken(f"bench{CONVERSATIONS:07d}"):
            await pilot.pause(0.05)
        await app.workers.wait_for_complete()
        ids = [info.id for info in backend.conversations()]
        await pilot.pause(0.5)
        for conversation_id in ids:  # each shown once, as a user going through them
            await app.main.show_conversation(conversation_id)
            await painted(app)
        for number in range(SWITCHES):
            conversation_id = ids[(number * 37) % len(ids)]
            started = time.perf_counter()
            await app.main.show_conversation(conversation_id)
            switches.append((await painted(app) - started) * 1000)
        gc.collect()
        after = rss_mib()
        await app.shut_down()
    return before, after, switches


def main() -> None:
    compile_sources()
    speed = machine_speed()
    print(f"machine-speed probe: {speed:.0f} ms", flush=True)
    figures: dict[str, dict[str, Any]] = {}
    before, after, switches = anyio.run(many_open)
    figures[f"RSS with {CONVERSATIONS} conversations of {ITEMS:,} items, all shown"] = figure(
        [after], "MiB"
    )
    figures[f"RSS before the app ({CONVERSATIONS} conversations)"] = figure([before], "MiB")
    figures[f"switch to a conversation of {ITEMS:,} items → painted"] = figure(switches, "ms")
    print_table(figures)
    save(figures, {})


if __name__ == "__main__":
    main()
