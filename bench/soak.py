"""A soak: 200 turns of the 20,000-token answer in one conversation, through the app on the
real engine and the scripted model, one after the other as fast as they end.

- the app's memory after the first 20 turns and after all 200 (flat: within 10 %), each
  read at rest: once nothing has happened for as long as the app waits before a full pass of
  Python's collector (as when the user reads the answer; turns sent back to back leave the
  widgets let go of as garbage in cycles until then);
- each turn's longest event-loop stall (a frame cannot be painted while the loop is held)
  and its time from Enter to the end shown: the last 20 turns against the first 20.

Run: `.venv/bin/python -m bench.soak` (some 8 to 15 minutes). Prints a table and merges into
bench/results.json.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import anyio
from anyio.streams.buffered import BufferedByteReceiveStream

from bench.figures import figure, print_table, save, scratch_root, until
from bench.tui_figures import rss_mib, send, the_app
from tui.app import CodexDeckApp
from tui.collector import CHECK_SECONDS, FULL_QUIET_SECONDS
from tui.entries import TurnEntry
from tui.widgets.transcript import Transcript

TURNS = 200
COMPARED = 20
"""Turns at the start and at the end compared."""


@dataclass(frozen=True)
class ModelProcess:
    """The scripted model in a process of its own (what it keeps of the requests it was
    sent, each with the whole conversation so far, is not the app's memory)."""

    base_url: str


async def soak(root: Path) -> tuple[list[float], list[float], float, float]:
    """Each turn's longest loop stall (ms) and milliseconds from Enter to its end shown; RSS
    (MiB) after COMPARED turns and after TURNS."""
    command = [sys.executable, "-m", "engine.scripted_model"]
    quiet = subprocess.DEVNULL
    async with await anyio.open_process(command, stdin=quiet, stderr=quiet) as process:
        assert process.stdout is not None
        url = (await BufferedByteReceiveStream(process.stdout).receive_until(b"\n", 200)).decode()
        try:
            return await soak_on(root, ModelProcess(url.strip()))
        finally:
            process.terminate()


async def soak_on(root: Path, model: ModelProcess) -> tuple[list[float], list[float], float, float]:
    """`soak` on the scripted model at `model`."""
    stalls: list[float] = []
    took: list[float] = []
    rss_early = 0.0
    async with the_app(root, model) as (app, _):
        transcript = app.main.view.transcript(app.main.current or "")
        assert transcript is not None
        for turn in range(1, TURNS + 1):
            stall, ms = await one_turn(app, transcript)
            stalls.append(stall)
            took.append(ms)
            if turn == COMPARED:
                rss_early = await rss_at_rest()
            if turn % 20 == 0:
                print(f"({turn} turns, RSS {rss_mib():.0f} MiB)", flush=True)
        rss_late = await rss_at_rest()
    return stalls, took, rss_early, rss_late


async def rss_at_rest() -> float:
    """The app's RSS (MiB) once it has been quiet long enough for its full collection."""
    await anyio.sleep(FULL_QUIET_SECONDS + 2 * CHECK_SECONDS)
    return rss_mib()


async def one_turn(app: CodexDeckApp, transcript: Transcript) -> tuple[float, float]:
    """Send the long answer's message as the next turn: the loop's longest stall until its
    end is shown, and the milliseconds from Enter to then."""
    longest = 0.0
    done = anyio.Event()

    async def watch_the_loop() -> None:
        nonlocal longest
        while not done.is_set():
            before = time.perf_counter()
            await anyio.sleep(0.005)
            longest = max(longest, time.perf_counter() - before - 0.005)

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(watch_the_loop)
        before = last_turn(transcript)
        began = time.perf_counter()
        await send(app, "long answer")
        await until(partial(ended, transcript, before))
        took = (time.perf_counter() - began) * 1000
        done.set()
    return longest * 1000, took


def last_turn(transcript: Transcript) -> str | None:
    """The key of the latest turn's end in the transcript (which lets go of older turns)."""
    ends = (entry.key for entry in reversed(transcript.entries) if isinstance(entry, TurnEntry))
    return next(ends, None)


def ended(transcript: Transcript, before: str | None) -> bool:
    """Whether a turn after `before` has ended and the transcript has drawn all it was given."""
    return last_turn(transcript) != before and transcript.settled


def main() -> None:
    with scratch_root() as root:
        stalls, took, rss_early, rss_late = anyio.run(soak, root)
    first, last = slice(0, COMPARED), slice(-COMPARED, None)
    name = f"{TURNS} turns of 20k tokens"
    figures = {
        f"{name}: longest stall, first {COMPARED} turns": figure(stalls[first], "ms"),
        f"{name}: longest stall, last {COMPARED} turns": figure(stalls[last], "ms"),
        f"{name}: Enter → end shown, first {COMPARED} turns": figure(took[first], "ms"),
        f"{name}: Enter → end shown, last {COMPARED} turns": figure(took[last], "ms"),
        f"{name}: RSS after {COMPARED} turns": figure([rss_early], "MiB"),
        f"{name}: RSS after {TURNS} turns": figure([rss_late], "MiB"),
    }
    ratios = {
        f"{name}: RSS after {TURNS} / after {COMPARED}": rss_late / rss_early,
        f"{name}: longest stall, last / first {COMPARED} (medians)": statistics.median(stalls[last])
        / statistics.median(stalls[first]),
    }
    print_table(figures)
    for ratio, value in ratios.items():
        print(f"{ratio}: {value:.2f}x")
    save(figures, ratios)


if __name__ == "__main__":
    main()
