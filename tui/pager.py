"""A command's whole output in the user's pager, with the app stepped aside meanwhile."""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from pathlib import Path

from textual.app import App, SuspendNotSupported

from engine import KeptOutput

DEFAULT_PAGER = "less"


def pager_command() -> list[str]:
    """`$PAGER`, or less (which shows control characters as ^X, so output stays inert)."""
    return shlex.split(os.environ.get("PAGER", "")) or [DEFAULT_PAGER]


def output_file(kept: KeptOutput, screen_copy: str) -> tuple[Path, bool]:
    """The file to page, and whether it is a temporary copy: the kept file, or else the
    screen's copy of the output (saying why) written to a private temporary file."""
    if kept.path is not None:
        return kept.path, False
    descriptor, name = tempfile.mkstemp(prefix="codex-deck-output-", suffix=".log")
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        file.write(f"[codex-deck: only what the screen kept is shown: {kept.problem}]\n")
        file.write(screen_copy)
    return Path(name), True


def page(app: App[object], path: Path) -> str | None:
    """Show `path` in the pager while the app is suspended; returns what went wrong, if
    anything (the file is then left where it is, and the message says where)."""
    command = pager_command()
    try:
        with app.suspend():
            subprocess.run([*command, str(path)], check=False)
    except SuspendNotSupported:
        return f"This terminal cannot hand over to a pager; the output is in {path}"
    except OSError as error:
        return f"Could not start {command[0]}: {error.strerror}; the output is in {path}"
    return None


def page_output(app: App[object], kept: KeptOutput, screen_copy: str) -> None:
    """A command's whole output in the pager: the kept file, or the screen's copy of it;
    what went wrong is said in a notification."""
    try:
        path, temporary = output_file(kept, screen_copy)
    except OSError as error:
        app.notify(
            f"The whole output was not kept ({kept.problem}) and no copy of the screen's "
            f"part can be written ({error.strerror or error}); the screen shows its latest "
            "part.",
            severity="warning",
            timeout=15,
        )
        return
    problem = page(app, path)
    if problem is not None:
        app.notify(problem, severity="warning", timeout=15)
    elif temporary:
        path.unlink(missing_ok=True)
