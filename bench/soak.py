"""A soak: 200 turns of the 20,000-token answer in one conversation, through the app on the
real engine and the scripted model, one after the other as fast as they end.

- the app's memory after the first 20 turns and after all 200 (flat: within 10 %), each
  read at rest: once nothing has happened for as long as the app waits before a full pass of
  Python's collector (as when the user reads the answer; turns sent back to back leave the
  widgets let go of as garbage in cycles until then);
- each turn's longest event-loop stall (a frame cannot be painted while the loop is held)
  and its time from Enter to the end shown: the last 20 turns against the first 20;
- each turn's longest frame, as the thread's CPU time spent painting it (what the app's
  own work costs: on a machine of two cores, codex and the model beside the app, the loop's
  stalls mostly wait for the CPU, in a system call or in `select`), and the app's CPU time
  for the turn: the last 20 turns against the first 20;
- then 20 turns more, each after one in a new conversation: their figures against the new
  conversation's, the same machine at the same moment. This machine's speed drifts over the
  soak's minutes (the app's CPU for the same turn by as much as 1.6×, while a short probe
  run between turns stays within 10 %), which the first 20 turns, minutes earlier, cannot
  tell from a growth smaller than the drift;
- codex's CPU for each turn (its app-server and what it started): the app waits for the
  CPU beside it.

Run: `.venv/bin/python -m bench.soak` (some 5 to 15 minutes). Prints a table and merges into
bench/results.json.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from unittest import mock

import anyio
from anyio.streams.buffered import BufferedByteReceiveStream

from bench.codex_tui import cpu_seconds_of, is_model, process_tree
from bench.figures import figure, print_table, save, scratch_root, until
from bench.tui_figures import rss_mib, send, the_app
from tui.app import CodexDeckApp
from tui.collector import CHECK_SECONDS, FULL_QUIET_SECONDS
from tui.entries import TurnEntry
from tui.pacing import PacedScreen
from tui.widgets.transcript import Transcript

TURNS = 200
COMPARED = 20
"""Turns at the start and at the end compared."""


@dataclass(frozen=True)
class ModelProcess:
    """The scripted model in a process of its own (what it keeps of the requests it was
    sent, each with the whole conversation so far, is not the app's memory)."""

    base_url: str


@dataclass
class Turns:
    """What each turn measured (ms)."""

    stalls: list[float] = field(default_factory=list)
    """The loop's longest stall."""
    took: list[float] = field(default_factory=list)
    """From Enter to the end shown."""
    frames: list[float] = field(default_factory=list)
    """The longest frame's CPU time."""
    cpu: list[float] = field(default_factory=list)
    """The app's CPU time."""
    codex: list[float] = field(default_factory=list)
    """codex's CPU time (its app-server's process and what it started)."""

    def by_name(self) -> dict[str, list[float]]:
        """Each figure of a turn, by the name the table gives it."""
        return {
            "longest stall": self.stalls,
            "Enter → end shown": self.took,
            "longest frame's CPU": self.frames,
            "app CPU a turn": self.cpu,
            "codex's CPU a turn": self.codex,
        }


@dataclass
class Soaked:
    """The long conversation's turns, the new one's and the long one's turn about after them,
    and the RSS (MiB) after COMPARED turns and after TURNS."""

    turns: Turns = field(default_factory=Turns)
    after: Turns = field(default_factory=Turns)
    """The long conversation's turns after TURNS, each after one in the new conversation."""
    new: Turns = field(default_factory=Turns)
    rss_early: float = 0.0
    rss_late: float = 0.0


@contextmanager
def frames_timed() -> Iterator[list[float]]:
    """The CPU time (ms) of each frame the app's screens paint from now on."""
    frames: list[float] = []
    paint = PacedScreen._paint

    def timed(screen: PacedScreen) -> None:
        began = time.thread_time()
        paint(screen)
        frames.append((time.thread_time() - began) * 1000)

    with mock.patch.object(PacedScreen, "_paint", timed):
        yield frames


async def soak(root: Path) -> Soaked:
    """`soak_on` a scripted model of its own."""
    command = [sys.executable, "-m", "engine.scripted_model"]
    quiet = subprocess.DEVNULL
    async with await anyio.open_process(command, stdin=quiet, stderr=quiet) as process:
        assert process.stdout is not None
        url = (await BufferedByteReceiveStream(process.stdout).receive_until(b"\n", 200)).decode()
        try:
            return await soak_on(root, ModelProcess(url.strip()))
        finally:
            process.terminate()


async def soak_on(root: Path, model: ModelProcess) -> Soaked:
    """TURNS turns on the scripted model at `model`, each measured; then COMPARED more, each
    after one in a new conversation."""
    soaked = Soaked()
    async with the_app(root, model) as (app, _):
        long = app.main.current or ""
        for turn in range(1, TURNS + 1):
            await measured_turn(app, long, soaked.turns)
            if turn == COMPARED:
                soaked.rss_early = await rss_at_rest()
            if turn % 20 == 0:
                print(f"({turn} turns, RSS {rss_mib():.0f} MiB)", flush=True)
        soaked.rss_late = await rss_at_rest()
        app.main.action_new_conversation()  # a worker of the screen's
        await until(lambda: app.main.current != long)
        new = app.main.current or ""
        for _ in range(COMPARED):
            await measured_turn(app, new, soaked.new)
            await measured_turn(app, long, soaked.after)
    return soaked


async def measured_turn(app: CodexDeckApp, conversation_id: str, turns: Turns) -> None:
    """A turn in the conversation (brought into view first, if it is not), measured."""
    if app.main.current != conversation_id:
        await app.main.show_conversation(conversation_id)
    transcript = app.main.view.transcript(conversation_id)
    assert transcript is not None
    await until(lambda: transcript.settled)
    with frames_timed() as frames:
        codex = codex_seconds()  # read (from /proc) before the app's own CPU is
        cpu = time.process_time()
        stall, ms = await one_turn(app, transcript)
        turns.cpu.append((time.process_time() - cpu) * 1000)
        turns.codex.append((codex_seconds() - codex) * 1000)
    turns.stalls.append(stall)
    turns.took.append(ms)
    turns.frames.append(max(frames, default=0.0))


def codex_seconds() -> float:
    """The CPU time of the processes this one started, but the scripted model's: codex."""
    started = process_tree(os.getpid())[1:]
    return sum(cpu_seconds_of(pid) for pid in started if not is_model(pid))


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
        soaked = anyio.run(soak, root)
    first, last = slice(0, COMPARED), slice(-COMPARED, None)
    name = f"{TURNS} turns of 20k tokens"
    figures = {}
    ratios = {f"{name}: RSS after {TURNS} / after {COMPARED}": soaked.rss_late / soaked.rss_early}
    afters, news = soaked.after.by_name(), soaked.new.by_name()
    for what, values in soaked.turns.by_name().items():
        after, new = afters[what], news[what]
        figures[f"{name}: {what}, first {COMPARED} turns"] = figure(values[first], "ms")
        figures[f"{name}: {what}, last {COMPARED} turns"] = figure(values[last], "ms")
        figures[f"{name}: {what}, {COMPARED} turns after"] = figure(after, "ms")
        figures[f"{name}: {what}, a new conversation's {COMPARED} beside them"] = figure(new, "ms")
        if what != "Enter → end shown":
            ratios[f"{name}: {what}, last / first {COMPARED} (medians)"] = statistics.median(
                values[last]
            ) / statistics.median(values[first])
            ratios[f"{name}: {what}, {COMPARED} after / a new conversation's beside them"] = (
                statistics.median(after) / statistics.median(new)
            )
    figures[f"{name}: RSS after {COMPARED} turns"] = figure([soaked.rss_early], "MiB")
    figures[f"{name}: RSS after {TURNS} turns"] = figure([soaked.rss_late], "MiB")
    print_table(figures)
    for ratio, value in ratios.items():
        print(f"{ratio}: {value:.2f}x")
    save(figures, ratios)


if __name__ == "__main__":
    main()
