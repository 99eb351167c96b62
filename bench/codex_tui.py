"""codex-deck side by side with the Codex CLI's own TUI (the `codex` binary of the same
wheel, 0.163, and the npm Codex 0.171 that `.ci/run` installs into .ci/npm, when it is there),
each in a 120×36 pty on the same scripted model, in one run:

- start → first paint; start → ready to type (the message box shows and takes keys; a
  message sent then waits for the engine); start → ready to send (the app-server is
  initialized and a thread started: codex-deck says "offline demo", the Codex TUI's header
  stops saying "loading" and it shows its session's "To get started"); and, for the floor
  under codex-deck's figure, start → ready to send of a minimal Textual app on codex-deck's
  engine (bench.engine_floor);
- the 20,000-token answer: seconds from Enter to the turn's end on screen, and the CPU time
  it took (the whole process tree: codex-deck with its app-server, without the demo's
  scripted model, which stands for the model's server; codex's TUI, which runs its engine
  in-process), per 1,000 agent-message deltas;
- then an answer streamed at a model's pace (about 100 tokens a second, as a person sees
  most answers come): the CPU time a second of it takes, the same process trees.

Run: `.venv/bin/python -m bench.codex_tui`. Prints a table and merges into bench/results.json.
"""

from __future__ import annotations

import fcntl
import math
import os
import pty
import select
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path
from typing import Any

from bench.figures import compile_sources, figure, print_table, save
from bench.tui_figures import COMMAND, CSI
from engine.scripted_model import load_script
from engine.transport.binary import find_codex
from engine.transport.offline import OFFLINE_PROVIDER
from tui.widgets.draft import PLACEHOLDER

RUNS = 5
ROOT = Path(__file__).resolve().parent.parent
DEADLINE = 60.0
PACED_SETTLE = 2.0
"""Seconds the paced answer streams before its CPU is measured (the turn under way)."""
PACED_SECONDS = 5.0
"""Seconds of the paced answer measured (it streams for some 9 s)."""
PACED_STOP = 1.0
"""Seconds given to stop the paced answer (Esc) before the app is closed."""
TICKS = os.sysconf("SC_CLK_TCK")
LEFT_BEHIND_SECONDS = 10.0
"""How long the processes a program started may go on once it has ended."""


class Pty:
    """A program in a pty whose screen output is read (escape sequences dropped) as it comes."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: Path) -> None:
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 36, 120, 0, 0))
        self.started = time.perf_counter()
        self.process = subprocess.Popen(
            argv,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=cwd,
            env={**os.environ, **env, "TERM": "xterm-256color"},
            start_new_session=True,
        )
        os.close(slave)
        self.text = b""

    def wait_for(self, wanted: bytes, after: int = 0) -> float:
        """Seconds since start when `wanted` shows (at or past offset `after` of the text)."""
        deadline = time.perf_counter() + DEADLINE
        while wanted not in self.text[after:]:
            read = self._read(deadline - time.perf_counter())
            assert read, f"{wanted!r} did not show; the screen ended with {self.text[-400:]!r}"
        return time.perf_counter() - self.started

    def _read(self, seconds: float) -> bool:
        """Take what the program wrote, waiting up to `seconds` for it; whether it wrote."""
        readable, _, _ = select.select([self.master], [], [], max(seconds, 0))
        if readable:
            self.text += CSI.sub(b"", os.read(self.master, 1 << 16))
        return bool(readable)

    def read_for(self, seconds: float) -> None:
        """Read the screen as it comes for `seconds` (a program whose output is not read
        stops when the pty's buffer is full)."""
        end = time.perf_counter() + seconds
        while (left := end - time.perf_counter()) > 0:
            self._read(left)

    def type(self, keys: bytes) -> None:
        os.write(self.master, keys)

    def cpu_seconds(self) -> float:
        """User and system CPU time of the process and every process under it, so far;
        without the demo's scripted model, which stands for the model's server (the Codex
        TUI's figure does not hold it either: its model runs apart)."""
        return sum(
            cpu_seconds_of(pid) for pid in process_tree(self.process.pid) if not is_model(pid)
        )

    def close(self) -> None:
        """End the program, then wait until every process it had started has ended too: the
        Codex TUI leaves its shell snapshot (a login shell) running some 200 ms after it
        ends, and the next program measured would start beside it."""
        started = process_tree(self.process.pid)[1:]
        self.process.terminate()
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self.master)
        deadline = time.perf_counter() + LEFT_BEHIND_SECONDS
        while any(Path(f"/proc/{pid}").exists() for pid in started):
            assert time.perf_counter() < deadline, f"processes left running: {started}"
            time.sleep(0.01)


def process_tree(pid: int) -> list[int]:
    found = [pid]
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return found  # it ended meanwhile
    for task in tasks:
        try:
            children = (task / "children").read_text().split()
        except OSError:
            continue
        for child in children:
            found += process_tree(int(child))
    return found


def is_model(pid: int) -> bool:
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return b"engine.scripted_model" in argv


def cpu_seconds_of(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICKS


def npm_codex() -> Path | None:
    """The Codex CLI of npm (0.171) that `.ci/run` installs, if it is there."""
    found = sorted((ROOT / ".ci" / "npm" / "node_modules" / "@openai").glob("*/vendor/*/bin/codex"))
    return found[0] if found else None


def codex_argv(model_url: str, binary: Path) -> list[str]:
    """The Codex CLI's TUI on the scripted model, configured as codex-deck configures it."""
    provider = f"model_providers.{OFFLINE_PROVIDER}"
    overrides = [
        f'model_provider="{OFFLINE_PROVIDER}"',
        f'{provider}.name="{OFFLINE_PROVIDER}"',
        f'{provider}.base_url="{model_url}"',
        f'{provider}.wire_api="responses"',
        f"{provider}.request_max_retries=0",
        f"{provider}.stream_max_retries=0",
        f"{provider}.supports_websockets=false",
        "features.plugins=false",
    ]
    argv = [str(binary)]
    for override in overrides:
        argv += ["-c", override]
    return [*argv, "-m", "codex-deck-scripted"]


def answer_deltas() -> int:
    """How many text deltas the scripted model sends for `long answer`."""
    reply = load_script().choose("long answer").replies[0]
    return math.ceil(len(reply.full_text) / reply.chunk)


Markers = tuple[bytes, bytes, bytes, bytes]
"""What shows on the first paint, when the app is ready to type, when it is ready to send,
and when a turn ended."""
OURS: Markers = (b"palette", PLACEHOLDER.encode(), b"offline demo", b"turn completed")
THEIRS: Markers = (b"OpenAI Codex", b"Ask Codex to do anything", b"To get started", b"Worked for")
FLOOR_READY = b"engine up"
"""What bench.engine_floor shows once its engine is up."""


def run_one(argv: list[str], env: dict[str, str], cwd: Path, markers: Markers) -> Any:
    """Start, wait until ready to send, send `long answer`, wait until the turn's end shows;
    the seconds to first paint, to ready to type, to ready to send and from Enter to the end,
    the CPU seconds the answer used, and the CPU seconds used up to ready to send (the whole
    process tree, as `Pty.cpu_seconds` counts it)."""
    first, typable, ready, done = markers
    app = Pty(argv, env, cwd)
    try:
        painted = app.wait_for(first)
        box = app.wait_for(typable)
        shown = app.wait_for(ready)
        to_ready = app.cpu_seconds()
        mark = len(app.text)
        app.type(b"long answer")
        app.wait_for(b"long answer", mark)
        mark = len(app.text)
        time.sleep(0.3)  # the Codex TUI takes keys that come at once as a paste
        cpu = app.cpu_seconds()
        sent = time.perf_counter()
        app.type(b"\r")
        app.wait_for(done, mark)
        took = time.perf_counter() - sent
        answer_cpu = app.cpu_seconds() - cpu
        return painted, box, shown, took, answer_cpu, to_ready, paced_cpu(app)
    finally:
        app.close()


def paced_cpu(app: Pty) -> float:
    """Send `paced answer` (an answer streamed at about 100 tokens a second); the CPU
    seconds a second of it takes once it has streamed for a while, the screen read as it
    comes."""
    mark = len(app.text)
    app.type(b"paced answer")
    app.wait_for(b"paced answer", mark)
    time.sleep(0.3)  # as for the long answer: not taken as a paste
    app.type(b"\r")
    app.read_for(PACED_SETTLE)
    before = app.cpu_seconds()
    app.read_for(PACED_SECONDS)
    cpu = app.cpu_seconds() - before
    app.type(b"\x1b")  # stopped, so that the model streams no more to the next app's start
    app.read_for(PACED_STOP)
    return cpu / PACED_SECONDS


def floor_ready(model_url: str, env: dict[str, str], cwd: Path) -> float:
    """Seconds from start until bench.engine_floor (a minimal Textual app on the engine) shows
    its engine up (ready to send)."""
    argv = [sys.executable, "-m", "bench.engine_floor", model_url, str(cwd)]
    app = Pty(argv, env, Path(__file__).resolve().parent.parent)
    try:
        return app.wait_for(FLOOR_READY)
    finally:
        app.close()


def main() -> None:
    deltas = answer_deltas()
    compile_sources()
    model = subprocess.Popen(
        [sys.executable, "-m", "engine.scripted_model"], stdout=subprocess.PIPE, text=True
    )
    figures: dict[str, dict[str, Any]] = {}
    try:
        assert model.stdout is not None
        url = model.stdout.readline().strip()
        with tempfile.TemporaryDirectory() as scratch:
            root = Path(scratch)
            (root / "ws").mkdir()
            config = root / "config.toml"
            ours, floor = [], []
            tuis = {"Codex TUI": find_codex(None).path, "Codex TUI 0.171": npm_codex()}
            theirs: dict[str, list[Any]] = {name: [] for name, binary in tuis.items() if binary}
            for run in range(RUNS):
                for name, runs in theirs.items():
                    binary = tuis[name]
                    assert binary is not None
                    home = root / f"home-{run}-{len(runs)}-{name[-4:]}"
                    home.mkdir()
                    runs.append(
                        run_one(
                            codex_argv(url, binary),
                            {"CODEX_HOME": str(home)},
                            root / "ws",
                            THEIRS,
                        )
                    )
                ours.append(
                    run_one(
                        [str(COMMAND), "--demo"],
                        {"CODEX_DECK_CONFIG": str(config)},
                        root / "ws",
                        OURS,
                    )
                )
                home = root / f"floor-home-{run}"
                home.mkdir()
                floor.append(floor_ready(url, {"CODEX_HOME": str(home)}, root / "ws"))
    finally:
        model.kill()
        model.wait()
    for name, runs in (("codex-deck", ours), *theirs.items()):
        figures[f"{name}: start → first paint"] = figure([r[0] * 1000 for r in runs], "ms")
        figures[f"{name}: start → ready to type"] = figure([r[1] * 1000 for r in runs], "ms")
        figures[f"{name}: start → ready to send"] = figure([r[2] * 1000 for r in runs], "ms")
        figures[f"{name}: 20k-token answer, Enter → end shown"] = figure(
            [r[3] * 1000 for r in runs], "ms"
        )
        figures[f"{name}: CPU per 1,000 deltas"] = figure(
            [r[4] * 1000 / deltas * 1000 for r in runs], "ms"
        )
        figures[f"{name}: CPU to ready to send"] = figure([r[5] * 1000 for r in runs], "ms")
        figures[f"{name}: CPU a second, an answer at a model's pace"] = figure(
            [r[6] * 1000 for r in runs], "ms"
        )
    figures["Textual + the engine alone: start → ready to send"] = figure(
        [f * 1000 for f in floor], "ms"
    )
    print_table(figures)

    def over(ours: str, theirs: str) -> float:
        return float(figures[ours]["median"] / figures[theirs]["median"])

    ratios = {
        "start → ready to send, Textual + the engine alone / Codex TUI": over(
            "Textual + the engine alone: start → ready to send", "Codex TUI: start → ready to send"
        ),
    }
    for tui in theirs:
        against = "" if tui == "Codex TUI" else f" ({tui})"
        for what in ("start → ready to type", "start → ready to send"):
            ratios[f"{what}, codex-deck / Codex TUI{against}"] = over(
                f"codex-deck: {what}", f"{tui}: {what}"
            )
        ratios[f"CPU per delta, codex-deck / Codex TUI{against}"] = over(
            "codex-deck: CPU per 1,000 deltas", f"{tui}: CPU per 1,000 deltas"
        )
        pace = "CPU a second, an answer at a model's pace"
        ratios[f"{pace}, codex-deck / Codex TUI{against}"] = over(
            f"codex-deck: {pace}", f"{tui}: {pace}"
        )
    print(f"\n{deltas:,} deltas per answer")
    for name, ratio in ratios.items():
        print(f"{name}: {ratio:.2f}x")
    save(figures, ratios)


if __name__ == "__main__":
    main()
