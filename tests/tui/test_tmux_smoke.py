"""Smoke test: the real `codex-deck --demo` in a real terminal (tmux), typed into with
send-keys and read back with capture-pane."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
from pathlib import Path

from tests.conftest import local_settings
from tests.tui.tmux import COMMAND, Terminal, at_the_shell, message_box
from tui.parsed_css import kept_at

MOST_KEYS = 600
"""Seven lines of the message box, at most, as the test types them."""


def test_the_demo_answers_a_typed_prompt(terminal: Terminal, isolated_settings: Path) -> None:
    terminal.type(f"CODEX_DECK_CONFIG={isolated_settings} {COMMAND} --demo", "Enter")
    terminal.wait_for("Welcome to the codex-deck demo")
    terminal.wait_for("offline demo")
    terminal.type("show markdown")
    terminal.wait_for("show markdown")
    terminal.type("Enter")
    terminal.wait_for("That is all of it.")
    terminal.wait_for("turn completed")
    screen = terminal.screen()
    assert "Streaming Markdown" in screen
    assert "› show markdown" in screen
    terminal.type("C-q")
    terminal.wait_until(lambda: at_the_shell(terminal), "codex-deck to exit")


def test_keys_typed_while_it_starts_all_reach_the_message_box(
    terminal: Terminal, isolated_settings: Path
) -> None:
    """Typed from the first frame until the main screen has taken its place and the engine is
    up (or until MOST_KEYS): every key shows, in order, and the message goes once codex is
    up. (tests/tui/test_starting.py types while the screens change places, deterministically.)"""
    terminal.type(f"CODEX_DECK_CONFIG={isolated_settings} {COMMAND} --demo", "Enter")
    first = ""

    def first_frame() -> bool:
        nonlocal first
        first = terminal.screen()
        return "starting codex-deck…" in first

    terminal.wait_until(first_frame, "the first frame")
    assert "Welcome to the codex-deck demo" in first, "the demo's first frame shows its tour"
    typed = ""
    after_ready = 5
    while after_ready and len(typed) < MOST_KEYS:
        keys = "".join(str((len(typed) + n) % 10) for n in range(3))
        typed += keys
        terminal.type("-l", keys)
        if "offline demo" in terminal.screen():
            after_ready -= 1
    terminal.wait_for("offline demo")  # a slower machine may be up only after the last key
    terminal.wait_until(lambda: message_box(terminal.screen()) == typed, f"{typed!r} to show")
    terminal.type("Enter")
    terminal.wait_for("turn completed")


def test_a_recorded_demo_replays_in_the_terminal(
    terminal: Terminal, isolated_settings: Path, tmp_path: Path
) -> None:
    recording = tmp_path / "demo.jsonl"
    terminal.type(
        f"CODEX_DECK_CONFIG={isolated_settings} {COMMAND} --demo --record {recording}", "Enter"
    )
    terminal.wait_for("offline demo")
    terminal.type("show markdown", "Enter")
    terminal.wait_for("turn completed")
    terminal.type("C-q")
    terminal.wait_for(f"codex-deck: recorded to {recording}")
    terminal.type("clear", "Enter")
    terminal.wait_until(lambda: "recorded to" not in terminal.screen(), "the screen to clear")

    terminal.type(f"CODEX_DECK_CONFIG={isolated_settings} {COMMAND} replay {recording}", "Enter")
    terminal.wait_for("replay (read-only)")
    terminal.wait_for("That is all of it.")
    terminal.wait_for("turn completed")
    assert "› show markdown" in terminal.screen()
    terminal.type("hello", "Enter")
    terminal.wait_for("This is a replay: it shows what happened and sends nothing.")
    terminal.type("C-q")
    terminal.wait_until(lambda: at_the_shell(terminal), "codex-deck to exit")


def test_after_the_app_is_killed_mid_turn_it_comes_back_and_says_what_is_unknown(
    terminal: Terminal, isolated_settings: Path, model_url: str, tmp_path: Path
) -> None:
    local_settings(isolated_settings, model_url, tmp_path)
    start = f"CODEX_DECK_CONFIG={isolated_settings} {COMMAND}"
    terminal.type(start, "Enter")
    terminal.wait_for("codex online")
    terminal.type("count for me", "Enter")
    terminal.wait_for("turn completed")
    terminal.type("take your time", "Enter")
    terminal.wait_for("Thinking this through")

    shell = int(terminal.tmux("display", "-p", "-t", terminal.name, "#{pane_pid}"))
    [app] = subprocess.run(
        ["pgrep", "-P", str(shell)], capture_output=True, text=True, check=True
    ).stdout.split()
    os.killpg(os.getpgid(int(app)), signal.SIGKILL)
    terminal.wait_until(lambda: at_the_shell(terminal), "the shell to be back")

    terminal.type("stty sane; clear", "Enter", start, "Enter")
    terminal.wait_for("cut off when codex went away")
    screen = terminal.screen()
    assert "NEEDS ATTENTION" in screen
    assert "result unknown" in screen
    assert "› count for me" in screen
    assert "one two three" in screen
    terminal.type("C-q")


def test_a_command_output_opens_whole_in_the_pager_and_the_app_comes_back(
    terminal: Terminal, isolated_settings: Path, tmp_path: Path
) -> None:
    paged = tmp_path / "paged.txt"
    pager = tmp_path / "pager"
    pager.write_text(f'#!/bin/sh\nwc -c < "$1" > {paged}\nhead -c 300 "$1"\nread answer\n')
    pager.chmod(0o700)
    terminal.type(f"PAGER={pager} CODEX_DECK_CONFIG={isolated_settings} {COMMAND} --demo", "Enter")
    terminal.wait_for("offline demo")
    terminal.type("flood the output", "Enter")
    terminal.wait_for("turn completed")
    terminal.wait_for("opens all of it")
    terminal.type("/output", "Enter")
    terminal.wait_until(lambda: paged.exists() and bool(paged.read_text().strip()), "the pager")
    terminal.wait_for("x" * 40)
    assert "turn completed" not in terminal.screen(), "the app stepped aside"
    assert int(paged.read_text()) > 1_000_000
    terminal.type("Enter")
    terminal.wait_for("turn completed")
    terminal.type("C-q")
    terminal.wait_until(lambda: at_the_shell(terminal), "codex-deck to exit")


def test_a_second_start_reads_the_css_the_first_parsed(
    terminal: Terminal, isolated_settings: Path, tmp_path: Path
) -> None:
    """The app's CSS, parsed on the first start, is kept, the user's alone, and read on the
    next: that start parses none of it (it has nothing to write back) and draws the same."""
    cache = tmp_path / "cache"
    screens = []
    for _ in range(2):
        terminal.type(
            f"XDG_CACHE_HOME={cache} CODEX_DECK_CONFIG={isolated_settings} {COMMAND} --demo",
            "Enter",
        )
        terminal.wait_for("offline demo")
        screens.append(terminal.screen())
        terminal.type("C-q")
        terminal.wait_until(lambda: at_the_shell(terminal), "codex-deck to exit")
        kept = cache / "codex-deck" / kept_at().name
        if len(screens) == 1:
            written = kept.stat().st_mtime_ns
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert kept.stat().st_mtime_ns == written, "the second start parsed CSS the first had not"
    assert screens[1] == screens[0]
