"""Figures under load, each through the app on the real engine and the scripted model:

- one command printing 10 MB of output: keystroke → composer and → echo painted while it
  streams, and the app's memory after it (the whole output goes to a file, the screen keeps
  256 KB);
- a conversation of 5,000 items, reopened after a restart: start → its latest items painted
  (the latest few hundred are read from codex; the older ones as the user goes back);
- eight conversations streaming long answers at once: all complete, and the keystroke
  latencies meanwhile (to the composer, to the echo painted).

Run: `.venv/bin/python -m bench.load_figures`. Prints a table and merges into bench/results.json.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
from textual.pilot import Pilot

from bench.figures import figure, print_table, save
from bench.tui_figures import echo_ms, percentile, rss_mib, send, the_app
from engine.conversations.history_pages import FIRST_ITEMS
from engine.engine import Engine
from engine.events import EngineEvent, ItemDelta, TurnCompleted
from engine.records.store import Store
from engine.scripted_model import Script, load_script, run_scripted_model
from engine.scripted_model.scenario import builtin_files
from engine.settings import LimitsSettings, Settings
from engine.transport.fanout import Subscription
from engine.transport.offline import offline_settings
from tui.app import CodexDeckApp
from tui.entries import TurnEntry
from tui.widgets.composer import Composer
from tui.widgets.notes import TurnMarker
from tui.widgets.transcript import Transcript

RUNS = 3
STREAM_RUNS = 2
ITEMS = 5000
STREAMS = 8


def many_items_scenario(items: int) -> str:
    """A scenario: `many items` is answered with `items` - 1 short messages in one turn."""
    return f"""
[[scenario]]
name = "many-items"
match = '(?i)\\bmany items\\b'

[[scenario.reply]]
messages = {items - 1}
chunk = 64
text = "One of many short answers, with a `code span` and **bold** words."
"""


PACED_FLOOD = '''
[[scenario]]
name = "paced-flood"
match = '(?i)\\bpaced flood\\b'

[[scenario.reply]]
exec = """for i in $(seq 100); do \\
head -c 100000 /dev/zero | tr '\\\\0' 'x' | fold -w 100; sleep 0.01; done"""

[[scenario.reply]]
text = "The command printed 10 MB."
'''
"""10 MB printed in a hundred pieces 10 ms apart: codex passes on most of it as output deltas
(7-8 MB in runs here), where the demo's `flood the output`, printed at once, comes to none to
3 MB of them on a fast machine (codex drops the deltas it cannot send in time)."""


def shown(app: CodexDeckApp, conversation_id: str) -> Transcript:
    return app.main.query_one(f"#transcript-{conversation_id}", Transcript)


async def typing_while(
    app: CodexDeckApp, pilot: Pilot[None], done: Callable[[], bool]
) -> tuple[list[float], list[float]]:
    """Milliseconds per key typed every 50 ms until `done()`: until the composer has it, and
    until the frame that shows it is painted."""
    composer = app.main.query_one(Composer)
    composer.focus()
    await pilot.pause()
    typed: list[float] = []
    painted: list[float] = []
    while not done():
        typed.append(await echo_ms(app, composer, painted))
    return typed, painted


async def flood(root: Path) -> tuple[tuple[list[float], list[float]], float, float, float]:
    """Keystroke latencies (to the composer, to the echo painted) while a command prints 10 MB
    (PACED_FLOOD), the RSS (MiB) after it, the seconds until the command's cell shows its
    end, and how many MB of the output came as deltas (codex drops some when a command
    prints faster than they are sent)."""
    script = with_scenario(root, "paced-flood", PACED_FLOOD)
    async with run_scripted_model(script) as model, the_app(root, model) as (app, pilot):
        assert app.main.backend is not None
        streamed = 0

        async def count(events: Subscription[EngineEvent]) -> None:
            nonlocal streamed
            with events:
                async for event in events:
                    if isinstance(event, ItemDelta) and event.kind == "command_output":
                        streamed += len(event.text)

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(count, app.main.backend.events())
            started = time.perf_counter()
            await send(app, "paced flood")
            transcript = shown(app, app.main.current or "")
            typed = await typing_while(app, pilot, lambda: bool(transcript.query(TurnMarker)))
            while not transcript.settled:
                await pilot.pause(0.01)
            took = time.perf_counter() - started
            tasks.cancel_scope.cancel()
        return typed, rss_mib(), took, streamed / 1_000_000


async def many_items(root: Path, store: Path, items: int = ITEMS) -> None:
    """One conversation of `items` items (a question and the answers), kept in `store`."""
    script = with_scenario(root, "many-items", many_items_scenario(items))
    async with run_scripted_model(script) as model:
        settings = offline_settings(Settings(), model, root / "home")
        kept = Store.open(store)
        try:
            async with Engine.open(settings, cwd=root / "ws", store=kept) as engine:
                events = engine.events()
                conversation = await engine.new_conversation(f"{items:,} items")
                await engine.submit(conversation.id, "many items")
                async for event in events:
                    if isinstance(event, TurnCompleted):
                        break
        finally:
            kept.close()


def with_scenario(root: Path, name: str, text: str) -> Script:
    """The built-in scenarios and `text` (written to a file in `root`)."""
    path = root / f"{name}.toml"
    path.write_text(text)
    return load_script([*builtin_files(), path])


async def reopen(root: Path, store: Path) -> tuple[float, int]:
    """Seconds from starting the app on `store` to the last of its items painted, and how
    many items the transcript holds then."""
    async with run_scripted_model() as model:
        started = time.perf_counter()
        async with the_app(root, model, store) as (app, pilot):
            transcript = await latest_painted(app, pilot, FIRST_ITEMS)
            return time.perf_counter() - started, len(transcript.entries)


async def latest_painted(app: CodexDeckApp, pilot: Pilot[None], items: int) -> Transcript:
    """Until the conversation in view holds `items` items and its latest is painted."""
    transcript = shown(app, app.main.current or "")
    while not (len(transcript.entries) >= items and transcript.settled):
        await pilot.pause(0.005)
    last = transcript.entries[-1].widget
    while last is None or not last.is_mounted or not last.region:
        await pilot.pause(0.005)
        last = transcript.entries[-1].widget
    return transcript


async def eight_streams(
    root: Path,
) -> tuple[float, tuple[list[float], list[float]], int, list[float]]:
    """Seconds until eight long answers, sent at once to eight conversations (one in view),
    have all completed and the one in view is drawn; the keystroke latencies meanwhile (to
    the composer, to the echo painted); how
    many completed; and the milliseconds each of the others then takes to be drawn when it
    is switched to."""
    async with (
        run_scripted_model() as model,
        the_app(root, model, running=STREAMS) as (
            app,
            pilot,
        ),
    ):
        assert app.main.backend is not None
        conversations = [app.main.current or ""]
        for number in range(STREAMS - 1):
            created = await app.main.backend.new_conversation(f"stream {number + 2}")
            conversations.append(created.id)
        while len(app.main.query(Transcript)) < STREAMS:
            await pilot.pause(0.01)
        started = time.perf_counter()
        for conversation in conversations:
            outcome = await app.main.backend.submit(conversation, "long answer")
            assert outcome.accepted, outcome.message

        def ended(conversation: str) -> bool:
            return any(isinstance(e, TurnEntry) for e in shown(app, conversation).entries)

        typed = await typing_while(app, pilot, lambda: all(map(ended, conversations)))
        while not shown(app, conversations[0]).settled:
            await pilot.pause(0.01)
        took = time.perf_counter() - started
        switches = []
        for conversation in conversations[1:]:
            began = time.perf_counter()
            await app.main.show_conversation(conversation)
            while not shown(app, conversation).settled:
                await pilot.pause(0.005)
            await pilot.pause()
            switches.append((time.perf_counter() - began) * 1000)
        return took, typed, sum(map(ended, conversations)), switches


async def eight_streams_engine_alone(root: Path) -> float:
    """Seconds for the engine alone to receive the same eight long answers (the floor)."""
    async with run_scripted_model() as model:
        base = Settings(limits=LimitsSettings(running_conversations=STREAMS))
        settings = offline_settings(base, model, root / "home")
        async with Engine.open(settings, cwd=root / "ws") as engine:
            events = engine.events()
            conversations = [await engine.new_conversation() for _ in range(STREAMS)]
            started = time.perf_counter()
            for conversation in conversations:
                await engine.submit(conversation.id, "long answer")
            ended = 0
            async for event in events:
                ended += isinstance(event, TurnCompleted)
                if ended == STREAMS:
                    break
            return time.perf_counter() - started


def main() -> None:
    figures: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        (root / "home").mkdir()
        (root / "ws").mkdir()
        floods = [anyio.run(flood, root) for _ in range(RUNS)]
        figures["10 MB output: keystroke → composer, p99"] = figure(
            [percentile(typed, 0.99) for (typed, _), *_ in floods], "ms"
        )
        figures["10 MB output: keystroke → echo painted, p99"] = figure(
            [percentile(painted, 0.99) for (_, painted), *_ in floods], "ms"
        )
        figures["10 MB output: RSS after it"] = figure([rss for _, rss, _, _ in floods], "MiB")
        figures["10 MB output: sent → shown"] = figure([t * 1000 for _, _, t, _ in floods], "ms")
        figures["10 MB output: of it, came as deltas"] = figure([mb for *_, mb in floods], "MB")

        store = root / "store.sqlite3"
        anyio.run(many_items, root, store)
        reopened = [anyio.run(reopen, root, store) for _ in range(RUNS)]
        assert all(items >= FIRST_ITEMS for _, items in reopened), reopened
        figures["5,000 items: restart → latest painted"] = figure(
            [took * 1000 for took, _ in reopened], "ms"
        )

        alone = []
        streams = []
        for _ in range(STREAM_RUNS):
            alone.append(anyio.run(eight_streams_engine_alone, root))
            streams.append(anyio.run(eight_streams, root))
        figures["8 long answers at once: engine alone"] = figure([a * 1000 for a in alone], "ms")
        assert all(completed == STREAMS for _, _, completed, _ in streams), streams
        figures["8 long answers at once: all done"] = figure(
            [took * 1000 for took, _, _, _ in streams], "ms"
        )
        figures["8 long answers at once: keystroke p99"] = figure(
            [percentile(typed, 0.99) for _, (typed, _), _, _ in streams], "ms"
        )
        figures["8 long answers at once: echo painted p99"] = figure(
            [percentile(painted, 0.99) for _, (_, painted), _, _ in streams], "ms"
        )
        figures["8 long answers: switch to one → drawn"] = figure(
            [ms for *_, switches in streams for ms in switches], "ms"
        )
    print_table(figures)
    ratio = (
        figures["8 long answers at once: all done"]["median"]
        / figures["8 long answers at once: engine alone"]["median"]
    )
    print(f"\n8 long answers at once, UI / engine alone: {ratio:.2f}x")
    save(figures, {"ui/engine (8 long answers at once)": ratio})


if __name__ == "__main__":
    main()
