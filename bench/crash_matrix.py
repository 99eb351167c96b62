"""The crash matrix: faults injected on the real codex binary and the scripted model, each a
number of times, with what was lost, what ran again by itself, and the time back online.

- codex killed mid-stream: SIGKILL to the app-server while a turn streams; back online is
  the kill until the restarted codex has resumed the threads (EngineStatus online).
- codex killed between turns: the same with nothing running.
- app killed mid-turn: SIGKILL to codex-deck's whole process tree (a separate process) while
  the model holds the turn; back online is a new codex-deck opening on the same store.
- app killed after the turn finished unseen: the app is frozen (SIGSTOP), the turn finishes,
  then the tree is killed; the message must come back completed.
- store refuses writes: the database made immutable mid-session, a turn run, then writable.

Lost: a message codex-deck accepted that its store does not hold afterwards. Ran again: more
than one model request carried it without the user asking (/resend).
Run: `.venv/bin/python -m bench.crash_matrix`.
"""

from __future__ import annotations

import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import anyio

from engine.engine import Engine
from engine.events import EngineEvent, EngineStatus, TurnCompleted
from engine.records.store import Store
from engine.scripted_model import ScriptedModel, run_scripted_model
from engine.settings import Settings
from engine.transport.fanout import Subscription
from engine.transport.offline import offline_settings

RUNS = 5
SLOW = "take your time"
QUICK = "count for me"
ROOT = Path(__file__).parents[1]


@dataclass
class Row:
    fault: str
    runs: int = 0
    lost: int = 0
    ran_again: int = 0
    outcomes: list[str] = field(default_factory=list)
    back_online_ms: list[float] = field(default_factory=list)


@dataclass
class Place:
    """One run's CODEX_HOME, workspace and store."""

    root: Path

    def __post_init__(self) -> None:
        (self.root / "home").mkdir()
        (self.root / "ws").mkdir()

    @property
    def store(self) -> Path:
        return self.root / "store.sqlite3"


def requests_for(model: ScriptedModel, text: str, before: int) -> int:
    return sum(1 for r in model.responses_requests()[before:] if r.user_text == text)


def stored(place: Place, submission_id: str | None) -> str | None:
    store = Store.open(place.store)
    try:
        return store.submission_state(submission_id) if submission_id else None
    finally:
        store.close()


async def until(events: Subscription[EngineEvent], done: Callable[[EngineEvent], bool]) -> None:
    with anyio.fail_after(60):
        async for event in events:
            if done(event):
                return


async def kill_codex(model: ScriptedModel, place: Place, row: Row, mid_turn: bool) -> None:
    before = len(model.responses_requests())
    store = Store.open(place.store)
    settings = offline_settings(Settings(), model, place.root / "home")
    async with Engine.open(settings, cwd=place.root / "ws", store=store) as engine:
        conversation = await engine.new_conversation()
        with engine.events() as events:
            if mid_turn:
                sent = await engine.submit(conversation.id, SLOW)
                await model.wait_until_holding()
            else:
                sent = await engine.submit(conversation.id, QUICK)
                await until(events, lambda e: isinstance(e, TurnCompleted))
            pid = engine.app_server_pid
            assert pid is not None
            killed = time.perf_counter()
            os.kill(pid, signal.SIGKILL)
            await until(events, lambda e: isinstance(e, EngineStatus) and e.status == "online")
            row.back_online_ms.append((time.perf_counter() - killed) * 1000)
        await store.flush()
        state = store.submission_state(sent.submission_id or "")
    store.close()
    text = SLOW if mid_turn else QUICK
    record(row, state, requests_for(model, text, before))


def record(row: Row, state: str | None, requests: int) -> None:
    row.runs += 1
    row.lost += state is None
    row.ran_again += requests > 1
    row.outcomes.append(state or "missing")


def app_process(model: ScriptedModel, place: Place) -> tuple[subprocess.Popen[str], str]:
    app = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.e2e.crashing_app",
            str(place.store),
            str(place.root / "home"),
            str(place.root / "ws"),
            model.base_url,
            SLOW,
        ],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
        cwd=ROOT,
    )
    assert app.stdout is not None
    words = app.stdout.readline().split()
    assert words[:1] == ["sent"], words
    return app, words[2]


def kill_tree(app: subprocess.Popen[str]) -> None:
    os.killpg(app.pid, signal.SIGKILL)
    app.wait()


async def reopen(model: ScriptedModel, place: Place, row: Row, submission: str) -> None:
    started = time.perf_counter()
    store = Store.open(place.store)
    settings = offline_settings(Settings(), model, place.root / "home")
    async with Engine.open(settings, cwd=place.root / "ws", store=store):
        row.back_online_ms.append((time.perf_counter() - started) * 1000)
    store.close()
    record(row, stored(place, submission), requests_for(model, SLOW, 0))


async def kill_app(model: ScriptedModel, place: Place, row: Row, finish_first: bool) -> None:
    app, submission = app_process(model, place)
    await model.wait_until_holding()
    if finish_first:
        os.kill(app.pid, signal.SIGSTOP)
        model.release()
        await turn_written(place.root / "home")
    kill_tree(app)
    await reopen(model, place, row, submission)


async def turn_written(home: Path) -> None:
    with anyio.fail_after(60):
        while True:
            rollouts = list((home / "sessions").rglob("rollout-*.jsonl"))
            if rollouts and b'"task_complete"' in rollouts[0].read_bytes():
                return
            await anyio.sleep(0.02)


async def store_refuses(model: ScriptedModel, place: Place, row: Row) -> None:
    before = len(model.responses_requests())
    store = Store.open(place.store)
    settings = offline_settings(Settings(), model, place.root / "home")
    async with Engine.open(settings, cwd=place.root / "ws", store=store) as engine:
        conversation = await engine.new_conversation()
        await store.flush()
        files = [str(place.store), f"{place.store}-wal"]
        await anyio.run_process(["chattr", "+i", *files])
        try:
            with engine.events() as events:
                sent = await engine.submit(conversation.id, QUICK)
                await until(events, lambda e: isinstance(e, TurnCompleted))
        finally:
            await anyio.run_process(["chattr", "-i", *files])
        engine.rename(conversation.id, "after")
        await store.flush()
        state = store.submission_state(sent.submission_id or "")
    store.close()
    record(row, state, requests_for(model, QUICK, before))


Fault = Callable[[ScriptedModel, Place, Row], Awaitable[None]]
FAULTS: dict[str, Fault] = {
    "codex killed mid-stream": lambda m, p, r: kill_codex(m, p, r, mid_turn=True),
    "codex killed between turns": lambda m, p, r: kill_codex(m, p, r, mid_turn=False),
    "app killed mid-turn": lambda m, p, r: kill_app(m, p, r, finish_first=False),
    "app killed, turn finished unseen": lambda m, p, r: kill_app(m, p, r, finish_first=True),
    "store refuses writes mid-session": store_refuses,
}


async def measure() -> list[Row]:
    rows = []
    for name, fault in FAULTS.items():
        row = Row(name)
        for _ in range(RUNS):
            with tempfile.TemporaryDirectory() as scratch:
                async with run_scripted_model() as model:
                    await fault(model, Place(Path(scratch)), row)
        rows.append(row)
    return rows


def main() -> None:
    rows = anyio.run(measure)
    print(f"{'fault':36} runs lost ran again  back online (median)  outcomes")
    for row in rows:
        online = (
            f"{statistics.median(row.back_online_ms):,.0f} ms" if row.back_online_ms else "stayed"
        )
        outcomes = ", ".join(sorted(set(row.outcomes)))
        counts = f"{row.runs:>4} {row.lost:>4} {row.ran_again:>9}"
        print(f"{row.fault:36} {counts}  {online:>21}  {outcomes}")


if __name__ == "__main__":
    main()
