"""Finding text in a large transcript: 2,000 commands with 25 KB of output each (about 50 MB
of text). Side by side in one run: how long the search itself takes, the event loop's longest
stall while it runs in a worker thread (as the find bar runs it) against running it on the
loop, and the find bar from open to its first match drawn.

Run: `.venv/bin/python -m bench.find`. Prints a table and merges into bench/results.json.
"""

from __future__ import annotations

import time
from typing import Any

import anyio

from bench.figures import figure, idle_conversation, print_table, save
from engine.events import (
    ConversationUpdated,
    EngineEvent,
    ItemCompleted,
    TurnCompleted,
    TurnStarted,
)
from engine.protocol import CommandExecutionItem
from engine.replay import replay_backend
from engine.settings import Settings
from tui.app import CodexDeckApp
from tui.transcript_search import find_matches
from tui.widgets.find_bar import FindBar
from tui.widgets.transcript import Transcript

COMMANDS = 2000
OUTPUT_LINES = 300
RUNS = 5
QUERY = "needle-1999"


def conversation() -> list[EngineEvent]:
    """One conversation of COMMANDS commands, each with OUTPUT_LINES lines of output; the
    last command's output holds the text searched for."""
    events: list[EngineEvent] = []

    def stamp() -> dict[str, Any]:
        return {"seq": len(events) + 1, "at": 4e9 + len(events), "conversation_id": "find"}

    info = idle_conversation("find", "50 MB of output")
    events.append(ConversationUpdated(**stamp(), info=info))
    line = "drwxr-xr-x  2 dev dev 4096 Nov 30 12:00 some-directory-name-here-padding\n"
    for number in range(COMMANDS):
        turn_id = f"turn-{number}"
        events.append(
            TurnStarted(**stamp(), turn_id=turn_id, thread_id="t", generation=0, submission_id=None)
        )
        output = line * OUTPUT_LINES + f"needle-{number}\n"
        item = CommandExecutionItem(
            id=f"c{number}",
            command=f"ls -la dir-{number}",
            cwd="/home/dev/project",
            status="completed",
            aggregated_output=output,
            exit_code=0,
        )
        events.append(ItemCompleted(**stamp(), turn_id=turn_id, item=item, status="completed"))
        events.append(
            TurnCompleted(**stamp(), turn_id=turn_id, status="completed", error=None, duration_ms=5)
        )
    return events


async def measure() -> dict[str, list[float]]:
    """Per run: the search alone; the loop's longest stall while it runs in a worker thread
    (as the find bar runs it) and while it runs on the loop; and the find bar from open to
    its first match drawn (jump, tint, unfolded output)."""
    app = CodexDeckApp(Settings(), replay_backend(conversation()))
    runs: dict[str, list[float]] = {"search": [], "thread": [], "loop": [], "shown": []}
    async with app.run_test(size=(120, 40)) as pilot:
        while not app.opened:
            await pilot.pause()
        await app.workers.wait_for_complete()
        while True:
            found = app.main.query(Transcript)
            transcript = found.first() if found else None
            if transcript and len(transcript.entries) >= COMMANDS * 2 and transcript.settled:
                break
            await pilot.pause(0.05)
        texts = transcript.search_texts()
        runs["megabytes"] = [sum(len(text) for _, _, text in texts) / 1e6]
        bar = app.main.query_one(FindBar)
        for _ in range(RUNS):
            started = time.perf_counter()
            matched = find_matches(texts, QUERY)
            runs["search"].append((time.perf_counter() - started) * 1000)
            assert [m.where for m in matched] == ["command output"]

            async def in_a_thread() -> None:
                await anyio.to_thread.run_sync(find_matches, texts, QUERY)

            async def on_the_loop() -> None:
                find_matches(texts, QUERY)

            runs["thread"].append(await longest_stall(in_a_thread))
            runs["loop"].append(await longest_stall(on_the_loop))
            started = time.perf_counter()
            bar.open(QUERY)
            await app.workers.wait_for_complete()
            await pilot.pause()
            runs["shown"].append((time.perf_counter() - started) * 1000)
            assert bar.query_text == QUERY
            bar.action_close()
            await pilot.pause()
        await app.shut_down()
    return runs


async def longest_stall(work: Any) -> float:
    """The longest gap (ms) between ticks of a 5 ms ticker while `work` runs."""
    gaps: list[float] = []
    done = anyio.Event()

    async def tick() -> None:
        last = time.perf_counter()
        while not done.is_set():
            await anyio.sleep(0.005)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(tick)
        await anyio.sleep(0.02)
        await work()
        await anyio.sleep(0.02)
        done.set()
    return max(gaps) * 1000


def main() -> None:
    runs = anyio.run(measure)
    size = runs["megabytes"][0]
    figures = {
        f"find in {size:.0f} MB of transcript (the search)": figure(runs["search"], "ms"),
        "longest loop stall, search in a thread": figure(runs["thread"], "ms"),
        "longest loop stall, search on the loop": figure(runs["loop"], "ms"),
        "find bar: open → first match drawn": figure(runs["shown"], "ms"),
    }
    print_table(figures)
    ratio = figures["longest loop stall, search on the loop"]["median"] / max(
        figures["longest loop stall, search in a thread"]["median"], 0.001
    )
    print(f"loop stall, search on the loop / in a thread: {ratio:.1f}×")
    save(figures, {"find: loop stall on the loop / in a thread": ratio})


if __name__ == "__main__":
    main()
