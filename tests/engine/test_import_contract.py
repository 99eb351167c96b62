"""The engine never loads textual, rich or tui — checked in a fresh interpreter."""

from __future__ import annotations

import subprocess
import sys

ENGINE_MODULES = [
    "engine",
    "engine.appserver",
    "engine.binary",
    "engine.launch",
    "engine.offline",
    "engine.process",
    "engine.protocol",
    "engine.rpc",
    "engine.scripted_model",
    "engine.settings",
]


def test_engine_imports_no_ui_code() -> None:
    script = (
        "import importlib, sys\n"
        f"for name in {ENGINE_MODULES!r}: importlib.import_module(name)\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich', 'tui'))\n"
        "print(','.join(loaded))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == ""


def test_importing_engine_alone_loads_nothing_heavy() -> None:
    script = (
        "import sys, engine\n"
        "print(','.join(m for m in ('pydantic', 'anyio', 'engine.protocol') if m in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == ""
