"""The benchmark suite: runs the benchmarks one after the other (each in its own process, each
writing its figures into bench/results.json), then prints every figure the performance
targets name, with its target and whether this run met it.

Run: `.venv/bin/python -m bench` (25 to 45 minutes on a 2-core machine, by its speed; making
the 50,000-item conversation takes some 4 to 8 of them, the soak some 10).
`.venv/bin/python -m bench --markdown` prints the last run's figures (bench/results.json) as
the README's table.
"""

from __future__ import annotations

import importlib.util
import json
import operator
import subprocess
import sys
from collections.abc import Callable
from typing import Any

from bench.codex_tui import npm_codex
from bench.figures import RESULTS, load, machine_speed

SUITE = (
    "bench.engine_core",
    "bench.wire_types",
    "bench.tui_figures",
    "bench.find",
    "bench.mentions",
    "bench.load_figures",
    "bench.scale",
    "bench.long_history",
    "bench.threads",
    "bench.store_find",
    "bench.soak",
    "bench.codex_tui",
)
MIB_TO_MB = 1.048576
NPM = "Codex TUI 0.171"
SOAK = "200 turns of 20k tokens"
BESIDE = "20 after / a new conversation's beside them"
"""The soak's turns after its 200 against a new conversation's, taken turn about with them."""

Target = tuple[str, str, Callable[[float, float], bool] | None, float, float]
"""Figure (or ratio) name, the target as said, how to compare (None: reported only), the
bound, and the factor that turns the figure's unit into the target's."""

TARGETS: tuple[Target, ...] = (
    ("start → first paint (--demo)", "≤ 350 ms", operator.le, 350, 1),
    ("start → ready (--demo, engine up)", "≤ 600 ms", operator.le, 600, 1),
    ("ui/engine (20k-token answer)", "≤ 1.15×", operator.le, 1.15, 1),
    ("longest event-loop stall while streaming", "≤ 33 ms", operator.le, 33, 1),
    ("keystroke → echo painted while streaming, p99", "≤ 30 ms", operator.le, 30, 1),
    ("keystroke → composer while streaming, p99", "reported", None, 0, 1),
    ("RSS idle (one empty conversation)", "≤ 90 MB", operator.le, 90, MIB_TO_MB),
    ("RSS after a 2,000-item conversation", "≤ 150 MB", operator.le, 150, MIB_TO_MB),
    ("RSS with 10 conversations of 2,000 items", "≤ 250 MB", operator.le, 250, MIB_TO_MB),
    ("rpc ours/sdk", "≥ 5×", operator.ge, 5, 1),
    ("start → ready to send, codex-deck / Codex TUI", "≤ 1.0×", operator.le, 1.0, 1),
    ("start → ready to send, Textual + the engine alone / Codex TUI", "(floor)", None, 0, 1),
    ("start → ready to type, codex-deck / Codex TUI", "≤ 1.0×", operator.le, 1.0, 1),
    ("CPU per delta, codex-deck / Codex TUI", "≤ 0.4×", operator.le, 0.4, 1),
    (f"start → ready to send, codex-deck / Codex TUI ({NPM})", "≤ 1.0×", operator.le, 1.0, 1),
    (f"start → ready to type, codex-deck / Codex TUI ({NPM})", "≤ 1.0×", operator.le, 1.0, 1),
    (f"CPU per delta, codex-deck / Codex TUI ({NPM})", "≤ 0.4×", operator.le, 0.4, 1),
    ("CPU a second, an answer at a model's pace, codex-deck / Codex TUI", "reported", None, 0, 1),
    (
        f"CPU a second, an answer at a model's pace, codex-deck / Codex TUI ({NPM})",
        "reported",
        None,
        0,
        1,
    ),
    ("10 MB output: keystroke → echo painted, p99", "≤ 100 ms", operator.le, 100, 1),
    ("10 MB output: keystroke → composer, p99", "reported", None, 0, 1),
    ("10 MB output: RSS after it", "≤ 150 MB", operator.le, 150, MIB_TO_MB),
    ("10 MB output: of it, came as deltas", "reported", None, 0, 1),
    ("5,000 items: restart → latest painted", "≤ 1 s", operator.le, 1000, 1),
    ("@ in 50,000 files, codex-deck / Codex TUI", "≤ 1.25×", operator.le, 1.25, 1),
    ("8 long answers at once: echo painted p99", "≤ 30 ms", operator.le, 30, 1),
    ("ui/engine (8 long answers at once)", "reported", None, 0, 1),
    ("8 long answers at once: keystroke p99", "reported", None, 0, 1),
    (
        "RSS with 100 conversations of 2,000 items, all shown",
        "≤ 250 MB",
        operator.le,
        250,
        MIB_TO_MB,
    ),
    ("switch to a conversation of 2,000 items → painted", "≤ 50 ms", operator.le, 50, 1),
    ("50,000 items: restart → latest painted", "≤ 1 s", operator.le, 1000, 1),
    ("50,000 items: a page up → painted", "≤ 100 ms", operator.le, 100, 1),
    ("50,000 items: 150 earlier items → painted", "≤ 100 ms", operator.le, 100, 1),
    ("50,000 items: RSS, latest painted", "reported", None, 0, 1),
    ("50,000 items: RSS, 20 steps back", "reported", None, 0, 1),
    ("10,000 threads: /threads → first rows painted", "≤ 100 ms", operator.le, 100, 1),
    ("10,000 threads: Codex TUI resume, start → first rows", "reported", None, 0, 1),
    ("10,000 threads: Codex TUI 0.171 resume, start → first rows", "reported", None, 0, 1),
    ("10,000 threads: codex lists 20 from its index", "reported", None, 0, 1),
    ("10,000 threads: codex lists 20 from the rollout files", "reported", None, 0, 1),
    ("10,000 threads: codex's first start → first list", "reported", None, 0, 1),
    ("1 GB store: find a word of the oldest item", "≤ 1 s", operator.le, 1000, 1),
    ("1 GB store: find a word said nowhere", "≤ 1 s", operator.le, 1000, 1),
    ("1 GB store: longest event-loop stall while finding", "≤ 50 ms", operator.le, 50, 1),
    (f"{SOAK}: RSS after 200 / after 20", "≤ 1.10×", operator.le, 1.10, 1),
    (f"{SOAK}: longest stall, {BESIDE}", "≤ 1.0×", operator.le, 1.0, 1),
    (f"{SOAK}: longest frame's CPU, {BESIDE}", "reported", None, 0, 1),
    (f"{SOAK}: app CPU a turn, {BESIDE}", "reported", None, 0, 1),
    (f"{SOAK}: codex's CPU a turn, {BESIDE}", "reported", None, 0, 1),
    (f"{SOAK}: longest stall, last / first 20 (medians)", "reported", None, 0, 1),
    (f"{SOAK}: longest frame's CPU, last / first 20 (medians)", "reported", None, 0, 1),
    (f"{SOAK}: app CPU a turn, last / first 20 (medians)", "reported", None, 0, 1),
    (f"{SOAK}: codex's CPU a turn, last / first 20 (medians)", "reported", None, 0, 1),
    (f"{SOAK}: RSS after 200 turns", "reported", None, 0, 1),
    (f"{SOAK}: Enter → end shown, last 20 turns", "reported", None, 0, 1),
)


BENCH_EXTRA = (
    "The suite needs the benchmarks' extra (the official SDK that bench.engine_core reads "
    "beside the engine): .venv/bin/pip install -e '.[test,bench]'"
)
NO_NPM_CODEX = (
    "No npm Codex in .ci/npm: the Codex TUI 0.171 rows will say 'not run' (bash .ci/run "
    "installs it there, or: npm install --prefix .ci/npm @openai/codex@0.171.0)"
)


def main() -> int:
    if sys.argv[1:] == ["--markdown"]:
        print(markdown(load()))
        return 0
    if importlib.util.find_spec("openai_codex") is None:
        print(BENCH_EXTRA, file=sys.stderr)
        return 2
    if npm_codex() is None:
        print(NO_NPM_CODEX, flush=True)
    RESULTS.unlink(missing_ok=True)
    before = machine_speed()
    print(f"machine-speed probe before: {before:.0f} ms", flush=True)
    for module in SUITE:
        print(f"\n=== {module}", flush=True)
        subprocess.run([sys.executable, "-m", module], check=True)
    after = machine_speed()
    print(f"\nmachine-speed probe: {before:.0f} ms before the suite, {after:.0f} ms after")
    print("(a fixed loop of 2 million multiplications; lower is faster)")
    results = load()
    print(f"\n{'figure':62} {'target':>10} {'median':>12} {'min-max':>22}  met")
    met = 0
    verdicts: dict[str, dict[str, Any]] = {}
    for name, said, compare, bound, factor in TARGETS:
        value, spread = measured(results, name)
        if value is None:
            print(f"{name:62} {said:>10} {'not run':>12}")
            continue
        if compare is None:
            print(f"{name:62} {said:>10} {value:12,.2f} {spread:>22}  —")
            continue
        ok = compare(value * factor, bound)
        met += ok
        verdicts[name] = {"target": said, "median": value, "met": ok}
        print(f"{name:62} {said:>10} {value:12,.2f} {spread:>22}  {'yes' if ok else 'no'}")
    targets = sum(1 for target in TARGETS if target[2] is not None)
    print(f"\n{met} of {targets} targets met; results in {RESULTS}")
    results["targets"] = verdicts
    results["machine-speed probe, ms"] = {"before": before, "after": after}
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    return 0


def markdown(results: dict[str, Any]) -> str:
    """The last run's figures as the README's table: each with its target, median (min to
    max) and whether it was met, and the run's machine-speed probe."""
    probe = results.get("machine-speed probe, ms", {})
    lines = [
        f"Machine-speed probe {probe.get('before', 0):.0f} ms before the suite, "
        f"{probe.get('after', 0):.0f} ms after (lower is faster).",
        "",
        "| figure | target | median | min to max | met |",
        "|---|---|---:|---|---|",
    ]
    for name, said, compare, bound, factor in TARGETS:
        value, spread = measured(results, name)
        if value is None:
            lines.append(f"| {name} | {said} | not run | | |")
            continue
        verdict = "—" if compare is None else ("yes" if compare(value * factor, bound) else "no")
        lines.append(f"| {name} | {said} | {value:,.2f} | {spread} | {verdict} |")
    targets = sum(1 for target in TARGETS if target[2] is not None)
    met = sum(line.endswith("| yes |") for line in lines)
    return "\n".join([*lines, "", f"{met} of {targets} targets met."])


def measured(results: dict[str, Any], name: str) -> tuple[float | None, str]:
    """The median of a figure (with its min-max), or a ratio."""
    figure = results.get("figures", {}).get(name)
    if figure is not None:
        spread = f"{figure['min']:,.1f} to {figure['max']:,.1f} {figure['unit']}"
        return figure["median"], spread
    ratio = results.get("ratios", {}).get(name)
    return (ratio, "ratio") if ratio is not None else (None, "")


if __name__ == "__main__":
    sys.exit(main())
