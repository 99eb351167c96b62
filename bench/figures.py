"""How the benchmarks report a figure, and where they keep the results."""

from __future__ import annotations

import json
import math
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio

from engine.events import ConversationInfo

RESULTS = Path(__file__).with_name("results.json")
PROBE_ROUNDS = 5
PROBE_LOOPS = 2_000_000
PACKAGES = [Path(__file__).parent.parent / name for name in ("engine", "tui")]


def compile_sources() -> None:
    """Write the bytecode of codex-deck's own modules before start-up is timed, as the first
    run does anywhere Python may write it: where PYTHONDONTWRITEBYTECODE is set (as on the
    machines these figures come from), every start would compile them from source again."""
    command = [sys.executable, "-m", "compileall", "-q", *map(str, PACKAGES)]
    subprocess.run(command, check=True)


async def until(condition: Callable[[], bool], every: float = 0.01) -> None:
    """Wait until `condition()` holds, looking every `every` seconds without touching the app
    (a Pilot pause would make it repaint and run a callback on every widget each time)."""
    while not condition():  # noqa: ASYNC110 - polling is the measure
        await anyio.sleep(every)


def figure(values: list[float], unit: str) -> dict[str, Any]:
    """A measured figure: median, min, max and the number of runs."""
    return {
        "median": statistics.median(values),
        "min": min(values),
        "max": max(values),
        "runs": len(values),
        "unit": unit,
    }


def print_table(figures: dict[str, dict[str, Any]]) -> None:
    print(f"{'figure':44} {'median':>12} {'min':>12} {'max':>12}  unit (runs)")
    for name, value in figures.items():
        print(
            f"{name:44} {value['median']:12,.1f} {value['min']:12,.1f} {value['max']:12,.1f}"
            f"  {value['unit']} ({value['runs']})"
        )


def load() -> dict[str, Any]:
    """What results.json holds (nothing yet: an empty dict)."""
    return json.loads(RESULTS.read_text()) if RESULTS.exists() else {}


def save(figures: dict[str, dict[str, Any]], ratios: dict[str, float]) -> None:
    """Merge figures and ratios into results.json, with the commit they were measured at."""
    results = load()
    results["commit"] = subprocess.run(
        ["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    results.setdefault("figures", {}).update(figures)
    results.setdefault("ratios", {}).update(ratios)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")


def idle_conversation(conversation_id: str, title: str) -> ConversationInfo:
    """A conversation at rest, for the benchmarks' made-up transcripts."""
    return ConversationInfo(
        id=conversation_id,
        title=title,
        cwd="/home/dev/project",
        state="idle",
        thread_id="thread",
        generation=0,
        queued=0,
        pending_interactions=0,
        archived=False,
        turn_id=None,
        turn_started_at=None,
    )


@contextmanager
def scratch_root() -> Iterator[Path]:
    """A throw-away directory with `home` (a CODEX_HOME) and `ws` (a workspace) in it, once
    the machine-speed probe is printed (a figure counts only beside it)."""
    print(f"machine-speed probe: {machine_speed():.0f} ms", flush=True)
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        (root / "home").mkdir()
        (root / "ws").mkdir()
        yield root


def machine_speed() -> float:
    """The machine's speed now: the fastest of a few runs of a fixed pure-Python loop, in ms
    (this machine's varies about 2× from hour to hour; a figure counts only beside it)."""
    fastest = math.inf
    for _ in range(PROBE_ROUNDS):
        began = time.perf_counter()
        total = 0
        for number in range(PROBE_LOOPS):
            total += number * number
        fastest = min(fastest, (time.perf_counter() - began) * 1000)
    return fastest
