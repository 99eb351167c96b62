"""Finding text across a store that holds 1 GB of transcripts: 200 archived conversations of
200 commands with 25 KB of output each, and 10 open ones, the app started on it (real engine,
scripted model). The search the palette runs for "find in every conversation", timed in the
app, for a word only the oldest command's output holds (the store read to its start) and for
one no conversation holds; and the event loop's longest stall meanwhile.

The store is written directly in codex-deck's own schema (its events as the journal writes
them); writing 1 GB through a codex turn by turn would take hours.

Run: `.venv/bin/python -m bench.store_find`. Prints a table and merges into
bench/results.json.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import anyio

from bench.figures import figure, print_table, save, scratch_root
from bench.find import longest_stall
from bench.tui_figures import the_app
from engine.events import ItemCompleted, TurnCompleted, TurnStarted
from engine.protocol import CommandExecutionItem
from engine.records.recording import event_to_json
from engine.records.search import SearchHit
from engine.records.store import Store
from engine.scripted_model import run_scripted_model
from tui.app import CodexDeckApp

ARCHIVED = 200
OPEN = 10
COMMANDS = 200
OUTPUT_LINES = 340
RUNS = 3
OLDEST = "needle-in-the-oldest"
NOWHERE = "said-in-no-conversation"
LINE = "drwxr-xr-x  2 dev dev 4096 Nov 30 12:00 some-directory-name-here-padding\n"


def rows(
    conversation: str, first_at: float, commands: int, needle: str = ""
) -> Iterator[tuple[str, str, float, str]]:
    """The trace rows of one conversation of `commands` commands, as the journal writes them;
    its first command's output ends with `needle`."""
    at = first_at
    for number in range(commands):
        turn = f"{conversation}-turn-{number}"
        output = LINE * OUTPUT_LINES + (needle if number == 0 else "")
        item = CommandExecutionItem(
            id=f"{turn}-c",
            command=f"ls -la dir-{number}",
            cwd="/home/dev/project",
            status="completed",
            aggregated_output=output,
            exit_code=0,
        )
        for event in (
            TurnStarted(
                seq=0,
                at=at,
                conversation_id=conversation,
                turn_id=turn,
                thread_id="t",
                generation=0,
                submission_id=None,
            ),
            ItemCompleted(
                seq=0,
                at=at,
                conversation_id=conversation,
                turn_id=turn,
                item=item,
                status="completed",
            ),
            TurnCompleted(
                seq=0,
                at=at,
                conversation_id=conversation,
                turn_id=turn,
                status="completed",
                error=None,
                duration_ms=5,
            ),
        ):
            text = json.dumps(event_to_json(event), ensure_ascii=False)
            yield conversation, turn, at, text
        at += 1


def write_store(path: Path) -> float:
    """The store: ARCHIVED archived conversations then OPEN open ones; its size in bytes."""
    Store.open(path).close()
    connection = sqlite3.connect(path)
    with connection:
        for number in range(ARCHIVED + OPEN):
            conversation = f"conv{number:05}"
            archived = number < ARCHIVED
            connection.execute(
                "INSERT INTO conversations (id, title, cwd, thread_id, generation, archived, "
                "created_at, updated_at) VALUES (?, ?, ?, NULL, 0, ?, ?, ?)",
                (
                    conversation,
                    f"conversation {number}",
                    "/home/dev/project",
                    archived,
                    number,
                    number,
                ),
            )
            connection.executemany(
                "INSERT INTO trace (conversation_id, turn_id, at, event) VALUES (?, ?, ?, ?)",
                rows(
                    conversation,
                    number * 1e6,
                    COMMANDS if archived else COMMANDS // 10,
                    OLDEST if number == 0 else "",
                ),
            )
    connection.close()
    return float(path.stat().st_size)


async def measure(root: Path, store: Path) -> dict[str, list[float]]:
    """Per run and word: milliseconds from the palette's search asked to its hits, and the
    event loop's longest stall meanwhile."""
    runs: dict[str, list[float]] = {"oldest": [], "nowhere": [], "stall": []}
    async with run_scripted_model() as model, the_app(root, model, store) as (app, _):
        for _ in range(RUNS):
            took, hits, stall = await timed_search(app, OLDEST)
            assert [(hit.conversation_id, hit.archived) for hit in hits] == [("conv00000", True)], (
                hits
            )
            runs["oldest"].append(took)
            runs["stall"].append(stall)
            took, hits, stall = await timed_search(app, NOWHERE)
            assert not hits, hits
            runs["nowhere"].append(took)
            runs["stall"].append(stall)
    return runs


async def timed_search(app: CodexDeckApp, word: str) -> tuple[float, list[SearchHit], float]:
    """The palette's search for `word`: the milliseconds it took, its hits, and the event
    loop's longest stall (ms) meanwhile."""
    found: list[SearchHit] = []
    took: list[float] = []

    async def search() -> None:
        began = time.perf_counter()
        found.extend(await app.main.search_conversations(word))
        took.append((time.perf_counter() - began) * 1000)

    stall = await longest_stall(search)
    return took[0], found, stall


def main() -> None:
    with scratch_root() as root:
        store = root / "store.sqlite3"
        began = time.perf_counter()
        size = write_store(store)
        print(f"(a store of {size / 1e9:.2f} GB written in {time.perf_counter() - began:.0f} s)")
        runs = anyio.run(measure, root, store)
    name = f"{size / 1e9:.0f} GB store"
    figures = {
        f"{name}: find a word of the oldest item": figure(runs["oldest"], "ms"),
        f"{name}: find a word said nowhere": figure(runs["nowhere"], "ms"),
        f"{name}: longest event-loop stall while finding": figure(runs["stall"], "ms"),
    }
    print_table(figures)
    save(figures, {})


if __name__ == "__main__":
    main()
