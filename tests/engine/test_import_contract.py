"""The engine never loads textual, rich or tui — checked in a fresh interpreter."""

from __future__ import annotations

import subprocess
import sys

ENGINE_MODULES = [
    "engine",
    "engine.engine",
    "engine.frontend",
    "engine.replay",
    "engine.transport.appserver",
    "engine.transport.binary",
    "engine.transport.launch",
    "engine.transport.offline",
    "engine.transport.process",
    "engine.protocol",
    "engine.transport.rpc",
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


def test_no_module_comes_back_to_itself_through_its_imports() -> None:
    """No import cycle in engine or tui, under TYPE_CHECKING either (the commands called the
    Engine back; `tui.app` and the palette's search imported each other)."""
    import grimp

    graph = grimp.build_graph("engine", "tui")
    modules = [m for m in graph.modules if m.split(".")[0] in ("engine", "tui")]
    imports = {m: set(graph.find_modules_directly_imported_by(m)) & set(modules) for m in modules}
    assert cycles(imports) == []


def cycles(imports: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules that reach each other through their imports (Tarjan), sorted."""
    order: dict[str, int] = {}
    lowest: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        order[module] = lowest[module] = len(order)
        stack.append(module)
        for imported in sorted(imports[module]):
            if imported not in order:
                visit(imported)
                lowest[module] = min(lowest[module], lowest[imported])
            elif imported in stack:
                lowest[module] = min(lowest[module], order[imported])
        if lowest[module] == order[module]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == module:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for module in sorted(imports):
        if module not in order:
            visit(module)
    return sorted(found)
