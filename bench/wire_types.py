"""The wire types: pydantic against msgspec, on codex-deck's own protocol models.

The models were pydantic's until the commit `PYDANTIC_AT`; that commit's `engine/protocol` is
taken out of git into a scratch package and measured beside today's (msgspec) in one run:
import time in a fresh interpreter, and notifications read (typed) per second from the same
JSON text of their params (the pydantic models read it as Python values, decoded first; today's
read the text straight into the models): a turn as codex sends it, mostly agent-message deltas,
an item started and completed every hundred, with a command and a file change among them.

Run: `.venv/bin/python -m bench.wire_types` (needs the git history). Prints a table and merges
into bench/results.json.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import msgspec

from bench.figures import figure, machine_speed, print_table, save

PYDANTIC_AT = "3422f74"
"""The last commit whose protocol models were pydantic models."""
ROOT = Path(__file__).resolve().parent.parent
NOTIFICATIONS = 50_000
RUNS = 5
IMPORT_RUNS = 7


def pydantic_protocol(into: Path) -> str:
    """The protocol package as it was at PYDANTIC_AT, as the package `wire_pydantic` in
    `into`; returns its name."""
    package = into / "wire_pydantic"
    package.mkdir()
    listed = subprocess.run(
        ["git", "ls-tree", "--name-only", f"{PYDANTIC_AT}:engine/protocol"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    for name in listed.stdout.split():
        if not name.endswith(".py"):
            continue
        source = subprocess.run(
            ["git", "show", f"{PYDANTIC_AT}:engine/protocol/{name}"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        (package / name).write_text(source.replace("engine.protocol", "wire_pydantic"))
    return "wire_pydantic"


def stream() -> list[tuple[str, dict[str, Any]]]:
    """The notifications of a turn, as (method, params)."""
    thread, turn = "01a2289c-9d91-7761-ba6d-5ee8f60de034", "01a2289c-9daf-7df1-86a9-6cddd67e295a"
    command: dict[str, Any] = {
        "type": "commandExecution",
        "id": "call-1",
        "command": "/bin/bash -lc 'ls -la'",
        "cwd": "/home/dev/project",
        "status": "completed",
        "commandActions": [{"type": "listFiles", "command": "ls -la", "path": None}],
        "aggregatedOutput": "total 0\n" * 20,
        "exitCode": 0,
        "durationMs": 12,
    }
    change: dict[str, Any] = {
        "type": "fileChange",
        "id": "call-2",
        "status": "completed",
        "changes": [
            {"path": "/home/dev/project/a.txt", "kind": {"type": "add"}, "diff": "hello\n" * 20}
        ],
    }
    notes: list[tuple[str, dict[str, Any]]] = []
    for n in range(NOTIFICATIONS - 1):
        ids = {"threadId": thread, "turnId": turn}
        if n % 100 == 0:
            started = {"type": "agentMessage", "id": f"msg-{n}", "text": ""}
            notes.append(("item/started", {**ids, "item": started, "startedAtMs": n}))
        elif n % 100 == 99:
            answer: dict[str, Any] = {
                "type": "agentMessage",
                "id": f"msg-{n - 99}",
                "text": "word " * 98,
            }
            item = (answer, command, change)[n // 100 % 3]
            notes.append(("item/completed", {**ids, "item": item, "completedAtMs": n}))
        else:
            notes.append(
                ("item/agentMessage/delta", {**ids, "itemId": f"msg-{n}", "delta": "word "})
            )
    done = {"id": turn, "items": [], "status": "completed", "durationMs": 1}
    notes.append(("turn/completed", {"threadId": thread, "turn": done}))
    return notes


def read_per_second(parse: Callable[[str, bytes], Any], notes: list[tuple[str, bytes]]) -> float:
    started = time.perf_counter()
    for method, params in notes:
        parse(method, params)
    return len(notes) / (time.perf_counter() - started)


def reader(module: str) -> Callable[[str, bytes], Any]:
    """The module's `parse_notification`, given the JSON text of the params."""
    parse = importlib.import_module(module).parse_notification
    if module == "engine.protocol":
        return cast(Callable[[str, bytes], Any], parse)
    return lambda method, text: parse(method, msgspec.json.decode(text))


def import_ms(module: str, path: Path) -> float:
    """Wall time of `import module` in a fresh interpreter, minus an empty one's."""

    def run(code: str) -> float:
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True, cwd=path)
        return time.perf_counter() - started

    return (run(f"import {module}") - run("pass")) * 1000


def main() -> None:
    print(f"machine-speed probe: {machine_speed():.0f} ms")
    figures: dict[str, dict[str, Any]] = {}
    notes = [(method, msgspec.json.encode(params)) for method, params in stream()]
    with tempfile.TemporaryDirectory() as scratch:
        old = pydantic_protocol(Path(scratch))
        sys.path.insert(0, scratch)
        libraries = {"pydantic": old, "msgspec": "engine.protocol"}
        for library, module in libraries.items():
            imports = [import_ms(module, Path(scratch)) for _ in range(IMPORT_RUNS)]
            figures[f"wire types ({library}): import"] = figure(imports, "ms")
            rates = [read_per_second(reader(module), notes) for _ in range(RUNS)]
            figures[f"wire types ({library}): notifications read"] = figure(rates, "per s")
    print_table(figures)

    def ratio(what: str) -> float:
        ours = figures[f"wire types (msgspec): {what}"]["median"]
        theirs = figures[f"wire types (pydantic): {what}"]["median"]
        return float(ours / theirs)

    ratios = {
        "wire types: import, msgspec / pydantic": ratio("import"),
        "wire types: notifications read, msgspec / pydantic": ratio("notifications read"),
    }
    for name, value in ratios.items():
        print(f"{name}: {value:.2f}x")
    save(figures, ratios)


if __name__ == "__main__":
    main()
