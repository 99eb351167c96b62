"""`@` file mentions in a 50,000-file tree, side by side with the Codex TUI in one run: both
in a 120×36 pty on the same scripted model and the same tree. `@` is typed, then (the list
open) a `z`, which only one file's path has; the figure is from that key to the file drawn
in the list of matches.

Run: `.venv/bin/python -m bench.mentions`. Prints a table and merges into bench/results.json.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.codex_tui import THEIRS, Pty, codex_argv
from bench.figures import compile_sources, figure, machine_speed, print_table, save
from bench.tui_figures import COMMAND
from engine.transport.binary import find_codex
from tests.conftest import local_settings

FILES = 50_000
RUNS = 5
CODEX = find_codex(None).path
QUERY = b"z"
TARGET = b"zebra_target.py"
"""The one file of the tree whose path has a `z`."""
OURS_READY = b"codex online"


def tree(root: Path) -> None:
    """FILES files in 100 packages of 7 folders each, and the one the query finds."""
    for number in range(FILES - 1):
        folder = root / f"pkg{number % 100}" / f"sub{number % 7}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"module_{number}.py").touch()
    (root / "pkg42" / "sub3" / TARGET.decode()).touch()


def first_results(argv: list[str], env: dict[str, str], cwd: Path, ready: bytes) -> float:
    """Seconds from the query's key to the one file it matches drawn."""
    app = Pty(argv, env, cwd)
    try:
        app.wait_for(ready)
        time.sleep(0.5)  # settled: the figure is the search's, not the start's
        app.type(b"@")
        time.sleep(0.5)  # the list opens
        mark = len(app.text)
        typed = time.perf_counter()
        app.type(QUERY)
        app.wait_for(TARGET, mark)
        return time.perf_counter() - typed
    finally:
        app.close()


def main() -> None:
    compile_sources()
    print(f"machine-speed probe before: {machine_speed():.0f} ms", flush=True)
    model = subprocess.Popen(
        [sys.executable, "-m", "engine.scripted_model"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert model.stdout is not None
        url = model.stdout.readline().strip()
        with tempfile.TemporaryDirectory() as scratch:
            root = Path(scratch)
            config = root / "config.toml"
            workspace = local_settings(config, url, root)
            tree(workspace)
            ours, theirs = [], []
            for run in range(RUNS):
                home = root / f"home-{run}"
                home.mkdir()
                theirs.append(
                    first_results(
                        codex_argv(url, CODEX), {"CODEX_HOME": str(home)}, workspace, THEIRS[2]
                    )
                )
                ours.append(
                    first_results(
                        [str(COMMAND)], {"CODEX_DECK_CONFIG": str(config)}, workspace, OURS_READY
                    )
                )
    finally:
        model.kill()
        model.wait()
    figures: dict[str, dict[str, Any]] = {
        f"codex-deck: @ in {FILES:,} files, key → match drawn": figure(
            [r * 1000 for r in ours], "ms"
        ),
        f"Codex TUI: @ in {FILES:,} files, key → match drawn": figure(
            [r * 1000 for r in theirs], "ms"
        ),
    }
    print_table(figures)
    names = list(figures)
    ratio = figures[names[0]]["median"] / figures[names[1]]["median"]
    ratios = {"@ in 50,000 files, codex-deck / Codex TUI": float(ratio)}
    print(f"\n@ in {FILES:,} files, codex-deck / Codex TUI: {ratio:.2f}x")
    print(f"machine-speed probe after: {machine_speed():.0f} ms")
    save(figures, ratios)


if __name__ == "__main__":
    main()
