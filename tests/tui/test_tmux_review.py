"""/review typed in a real terminal (tmux): the review's findings show as lines to move to, and
Enter on one opens the diff at its file."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.conftest import local_settings
from tests.e2e.test_diffs import GIT
from tests.tui.test_tmux_typing import type_slowly
from tests.tui.tmux import Terminal, quit_app, start_app


def reviewed_checkout(root: Path) -> None:
    """A checkout with the files the scripted reviewer's findings name, changed."""
    (root / "greeting.txt").write_text("hello\n")
    for step in (["init", "-q"], ["add", "."], ["commit", "-q", "-m", "start"]):
        subprocess.run([*GIT, *step], cwd=root, check=True)
    (root / "greeting.txt").write_text("hello\nhello\n")
    (root / "notes.md").write_text("# Notes\n\nremember the milk")


def test_review_findings_are_listed_and_one_opens_its_file_s_diff(
    terminal: Terminal, isolated_settings: Path, model_url: str, tmp_path: Path
) -> None:
    reviewed_checkout(local_settings(isolated_settings, model_url, tmp_path))
    start_app(terminal, isolated_settings)
    type_slowly(terminal, "", "/review")
    terminal.type("Enter")

    terminal.wait_for("review · 2 findings")
    screen = terminal.screen()
    assert "P1  greeting.txt:1-2  The greeting is written twice" in screen
    assert "P3  notes.md:4  The new file has no trailing newline" in screen
    terminal.wait_for("turn completed")
    assert "Full review comments:" not in terminal.screen(), "codex's repeat is not shown"
    terminal.type("BTab")  # from the message box to the last finding
    terminal.type("Enter")

    terminal.wait_for("+remember the milk")
    assert "A notes.md" in terminal.screen()
    terminal.type("Escape")
    terminal.wait_until(lambda: "A notes.md" not in terminal.screen(), "the diff to close")
    quit_app(terminal)
