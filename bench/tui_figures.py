"""TUI figures: start to first paint and to ready, a 20,000-token answer through the UI against
the engine alone (side by side), the event loop's longest stall while it streams, keys typed
meanwhile (to the composer, to the echo painted), and the app's memory: idle, after a
2,000-item conversation, and with ten of them.

Run: `.venv/bin/python -m bench.tui_figures`. Prints a table and merges into bench/results.json.
"""

from __future__ import annotations

import fcntl
import itertools
import json
import os
import pty
import re
import resource
import select
import struct
import subprocess
import sys
import tempfile
import termios
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
from textual import events
from textual.message import Message
from textual.pilot import Pilot

from bench.figures import compile_sources, figure, idle_conversation, print_table, save, until
from engine.engine import Engine
from engine.events import (
    ConversationUpdated,
    EngineEvent,
    ItemCompleted,
    ItemStarted,
    TurnCompleted,
    TurnStarted,
)
from engine.frontend import Backend
from engine.protocol import AgentMessageItem, UserMessageItem
from engine.records.store import Store
from engine.replay import replay_backend
from engine.scripted_model import run_scripted_model
from engine.settings import LimitsSettings, Settings
from engine.transport.offline import ModelServer, offline_settings
from tui.app import CodexDeckApp
from tui.widgets.composer import Composer
from tui.widgets.message import AgentMessage
from tui.widgets.notes import TurnMarker
from tui.widgets.transcript import Transcript

COMMAND = Path(sys.executable).parent / "codex-deck"
START_RUNS = 10
STREAM_RUNS = 5
CSI = re.compile(rb"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b[\]P][^\x07\x1b]*(\x07|\x1b\\)|\x1b.")


MINIMAL_APP = """
from textual.app import App
from textual.widgets import Footer, Static
class Minimal(App):
    def compose(self):
        yield Static("hello")
        yield Footer()
Minimal().run()
"""


def start_times(config: Path) -> tuple[float, float]:
    """Seconds from spawning `codex-deck --demo` in a pty to its first paint and to ready."""
    env = {"CODEX_DECK_CONFIG": str(config)}
    return painted_and_ready([str(COMMAND), "--demo"], env, b"offline demo")


def minimal_first_paint() -> float:
    """Seconds from spawning a Textual app with one Static and a Footer to its first paint:
    the floor for any Textual app of this Python on this machine."""
    painted, _ = painted_and_ready([sys.executable, "-c", MINIMAL_APP], {}, b"palette")
    return painted


def painted_and_ready(argv: list[str], env: dict[str, str], ready: bytes) -> tuple[float, float]:
    """Seconds from spawning `argv` in a 120×36 pty until the footer (`palette`) is painted,
    and until `ready` shows."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 36, 120, 0, 0))
    started = time.perf_counter()
    process = subprocess.Popen(
        argv,
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env={**os.environ, **env, "TERM": "xterm-256color"},
    )
    os.close(slave)
    screen = b""
    painted = shown = 0.0
    deadline = started + 30
    try:
        while not shown and time.perf_counter() < deadline:
            readable, _, _ = select.select([master], [], [], deadline - time.perf_counter())
            if not readable:
                break
            screen += CSI.sub(b"", os.read(master, 1 << 16))
            if not painted and b"palette" in screen:
                painted = time.perf_counter() - started
            if ready in screen:
                shown = time.perf_counter() - started
    finally:
        process.terminate()
        process.wait()
        os.close(master)
    assert painted, f"{argv[0]} did not paint"
    assert shown, f"{argv[0]} did not get ready"
    return painted, shown


async def engine_alone(root: Path) -> float:
    """Seconds for the engine to receive the whole answer (the floor for the UI)."""
    async with run_scripted_model() as model:
        settings = offline_settings(Settings(), model, root / "home")
        async with Engine.open(settings, cwd=root / "ws") as engine:
            events = engine.events()
            conversation = await engine.new_conversation()
            started = time.perf_counter()
            await engine.submit(conversation.id, "long answer")
            async for event in events:
                if isinstance(event, TurnCompleted):
                    break
            return time.perf_counter() - started


@asynccontextmanager
async def the_app(
    root: Path, model: ModelServer, store: Path | None = None, running: int = 4
) -> AsyncIterator[tuple[CodexDeckApp, Pilot[None]]]:
    """The app on the real engine (with a store, if given), once its conversation shows."""
    base = Settings(limits=LimitsSettings(running_conversations=running))
    settings = offline_settings(base, model, root / "home")

    @asynccontextmanager
    async def open_engine() -> AsyncIterator[Backend]:
        kept = Store.open(store) if store is not None else None
        try:
            async with Engine.open(settings, cwd=root / "ws", store=kept) as engine:
                yield engine
        finally:
            if kept is not None:
                kept.close()

    app = CodexDeckApp(settings, open_engine)
    async with app.run_test(size=(120, 40)) as pilot:
        while not app.opened or app.main.current is None:
            await pilot.pause(0.01)
        yield app, pilot
        await app.shut_down()


@asynccontextmanager
async def app_on_the_engine(root: Path) -> AsyncIterator[tuple[CodexDeckApp, Pilot[None]]]:
    """The app on the real engine and the scripted model, once its conversation shows."""
    async with run_scripted_model() as model, the_app(root, model) as running:
        yield running


async def through_ui(root: Path) -> tuple[float, float, float]:
    """Seconds until the UI shows the whole answer, the event loop's longest stall (s) until
    then, and seconds until the pieces of the answer that were never in view are drawn too
    (once it has been quiet for a moment)."""
    async with app_on_the_engine(root) as (app, _):
        stalls: list[float] = []
        done = anyio.Event()

        async def watch_the_loop() -> None:
            while not done.is_set():
                before = time.perf_counter()
                await anyio.sleep(0.005)
                stalls.append(time.perf_counter() - before - 0.005)

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(watch_the_loop)
            started = time.perf_counter()
            await send(app, "long answer")
            transcript = app.main.query_one(f"#transcript-{app.main.current}", Transcript)
            await until(lambda: bool(transcript.query(TurnMarker)) and transcript.settled)
            took = time.perf_counter() - started
            done.set()
        answer = transcript.query_one(AgentMessage)
        await until(lambda: not answer.undrawn)
        drawn = time.perf_counter() - started
    return took, max(stalls), drawn


async def keystrokes_while_streaming(
    root: Path,
) -> tuple[list[float], list[float], list[float]]:
    """Milliseconds from each key reaching the app (as the terminal driver hands it over) to
    the composer holding it, and to the end of the first frame painted after that, typed
    every 50 ms while the 20,000-token answer streams; then, once it has ended, ten more
    to the composer (idle)."""
    async with app_on_the_engine(root) as (app, _):
        composer = await send(app, "long answer")
        transcript = app.main.query_one(f"#transcript-{app.main.current}", Transcript)
        await until(lambda: bool(transcript.query(AgentMessage)))
        streaming: list[float] = []
        painted: list[float] = []
        while not transcript.query(TurnMarker):
            streaming.append(await echo_ms(app, composer, painted))
        idle = [await echo_ms(app, composer) for _ in range(10)]
    return streaming, painted, idle


async def send(app: CodexDeckApp, text: str) -> Composer:
    """Type `text` into the composer and hand the app an Enter as the terminal driver does
    (a Pilot key press would then wait, up to seconds, for the app to be idle); returns the
    composer once it has taken the message."""
    composer = app.main.query_one(Composer)
    composer.text = text
    app.post_message(events.Key("enter", "\r"))
    await until(lambda: not composer.text)
    return composer


async def echo_ms(
    app: CodexDeckApp, composer: Composer, painted: list[float] | None = None
) -> float:
    """Hand the app one key as the terminal driver does; milliseconds until the composer has
    it (then 50 ms of rest). With `painted`, also add to it the milliseconds until the end of
    the first frame painted after the composer took it (the frame that shows it: Textual
    writes it to the terminal as it ends)."""
    typed = len(composer.text)
    taken: list[tuple[float, int]] = []

    def note_when_taken(_: Message) -> None:
        # Called as the composer finishes each message: when it took the key, and how many
        # frames had been painted then (none can run while the composer takes a key).
        if not taken and len(composer.text) != typed:
            taken.append((time.perf_counter(), app.main.painted))

    composer.message_signal.subscribe(composer, note_when_taken, immediate=True)
    started = time.perf_counter()
    app.post_message(events.Key("x", "x"))
    while not taken:  # noqa: ASYNC110 - polling is the measure
        await anyio.sleep(0.001)
    composer.message_signal.unsubscribe(composer)
    taken_at, frames = taken[0]
    if painted is not None:
        while app.main.painted <= frames:  # noqa: ASYNC110 - polling is the measure
            await anyio.sleep(0.001)
        # The frame's end, unless another one came before this poll (then the poll's time).
        one = app.main.painted == frames + 1
        painted.append(((app.main.painted_at if one else time.perf_counter()) - started) * 1000)
    await anyio.sleep(0.05)
    return (taken_at - started) * 1000


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def conversation_of(items: int, number: int = 1, paragraphs: int = 1) -> list[EngineEvent]:
    """A finished conversation of `items` items (a user message and an answer of
    `paragraphs` paragraphs per turn)."""
    return list(conversation_events(items, number, paragraphs))


def conversation_events(items: int, number: int = 1, paragraphs: int = 1) -> Iterator[EngineEvent]:
    """The events of `conversation_of`, made one at a time."""
    conversation = f"bench{number:07d}"
    made = itertools.count(1)

    def stamp() -> dict[str, Any]:
        seq = next(made)
        return {"seq": seq, "at": 4e9 + seq - 1, "conversation_id": conversation}

    info = idle_conversation(conversation, f"{items:,} items ({number})")
    yield ConversationUpdated(**stamp(), info=info)
    paragraph = "Some **bold** words, `code`, and a list:\n\n- one\n- two\n"
    for turn in range(items // 2):
        turn_id = f"turn-{turn}"
        yield TurnStarted(
            **stamp(), turn_id=turn_id, thread_id="t", generation=0, submission_id=None
        )
        user = UserMessageItem(
            id=f"u{turn}", content=[{"type": "text", "text": f"question {turn}"}]
        )
        answer = AgentMessageItem(id=f"a{turn}", text=f"Answer {turn}. {paragraph * paragraphs}")
        for item in (user, answer):
            yield ItemStarted(**stamp(), turn_id=turn_id, item=item)
            yield ItemCompleted(**stamp(), turn_id=turn_id, item=item, status="completed")
        yield TurnCompleted(
            **stamp(), turn_id=turn_id, status="completed", error=None, duration_ms=900
        )


async def memory_after(items: int, conversations: int) -> tuple[float, float]:
    """RSS (MiB) of the process before the app and after it shows `conversations`
    conversations of `items` items each."""
    before = rss_mib()
    recorded = [e for n in range(conversations) for e in conversation_of(items, n + 1)]
    app = CodexDeckApp(Settings(), replay_backend(recorded))
    async with app.run_test(size=(120, 40)) as pilot:
        while not app.opened:
            await pilot.pause()
        await app.workers.wait_for_complete()
        entries = items * 3 // 2
        while True:
            shown = app.main.query(Transcript)
            if (
                len(shown) == conversations
                and all(len(t.entries) >= entries for t in shown)
                and all(t.settled or not t.display for t in shown)
            ):
                break
            await pilot.pause(0.05)
        after = rss_mib()
        await app.shut_down()
    return before, after


def rss_mib() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    figures: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        (root / "home").mkdir()
        (root / "ws").mkdir()
        compile_sources()
        starts = [start_times(root / "config.toml") for _ in range(START_RUNS)]
        figures["start → first paint (--demo)"] = figure([p * 1000 for p, _ in starts], "ms")
        figures["start → ready (--demo, engine up)"] = figure([r * 1000 for _, r in starts], "ms")
        floor = [minimal_first_paint() * 1000 for _ in range(START_RUNS)]
        figures["minimal Textual app → first paint"] = figure(floor, "ms")
        alone, ui, stalls, all_drawn = [], [], [], []
        for _ in range(STREAM_RUNS):
            alone.append(anyio.run(engine_alone, root))
            took, stall, drawn = anyio.run(through_ui, root)
            ui.append(took)
            stalls.append(stall * 1000)
            all_drawn.append(drawn)
        figures["20k-token answer, engine alone"] = figure([a * 1000 for a in alone], "ms")
        figures["20k-token answer, through the UI"] = figure([u * 1000 for u in ui], "ms")
        figures["20k-token answer, every piece drawn"] = figure([d * 1000 for d in all_drawn], "ms")
        figures["longest event-loop stall while streaming"] = figure(stalls, "ms")
        typed = [anyio.run(keystrokes_while_streaming, root) for _ in range(3)]
        for share in (0.5, 0.99):
            figures[f"keystroke → composer while streaming, p{share * 100:.0f}"] = figure(
                [percentile(streaming, share) for streaming, _, _ in typed], "ms"
            )
            figures[f"keystroke → echo painted while streaming, p{share * 100:.0f}"] = figure(
                [percentile(painted, share) for _, painted, _ in typed], "ms"
            )
        figures["keystroke → composer when idle, p50"] = figure(
            [percentile(idle, 0.5) for _, _, idle in typed], "ms"
        )
    for items, conversations, name in (
        (0, 1, "RSS idle (one empty conversation)"),
        (2000, 1, "RSS after a 2,000-item conversation"),
        (2000, 10, "RSS with 10 conversations of 2,000 items"),
    ):
        measured = subprocess.run(
            [sys.executable, "-m", "bench.tui_figures", "--memory", str(items), str(conversations)],
            capture_output=True,
            text=True,
            check=True,
        )
        _, after = json.loads(measured.stdout.strip().splitlines()[-1])
        figures[name] = figure([after], "MiB")
    ratio = (
        figures["20k-token answer, through the UI"]["median"]
        / figures["20k-token answer, engine alone"]["median"]
    )
    print_table(figures)
    print(f"\nUI / engine alone for the 20k-token answer: {ratio:.2f}x")
    save(figures, {"ui/engine (20k-token answer)": ratio})


if __name__ == "__main__":
    if sys.argv[1:2] == ["--memory"]:
        print(json.dumps(anyio.run(memory_after, int(sys.argv[2]), int(sys.argv[3]))))
    else:
        main()
