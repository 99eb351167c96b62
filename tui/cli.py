"""The `codex-deck` command."""

from __future__ import annotations

import argparse
import sys

from engine.binary import find_codex
from engine.errors import CodexDeckError
from engine.settings import load_settings
from engine.version import __version__

DEMO_TOUR = """\
Welcome to the codex-deck demo. The real Codex engine runs on a local scripted model: no account, \
no network, and a throw-away workspace. Try typing:

  show markdown      a streamed answer
  run a command      the agent runs `ls` in the sandbox
  approval           a command that waits for your approval (y approves, n declines)
  create a file      a file change, shown as a diff
  do it all          reasoning, an approved command, a new file and an answer
  take your time     an answer that keeps going: Esc stops it, or type `change course` to steer

F1 lists every key · ctrl+t shows the live trace · ctrl+n starts another conversation · \
ctrl+q quits"""

WELCOME = """\
Type a message for Codex and press Enter. `/` completes commands · F1 lists every key · \
ctrl+t shows the live trace · ctrl+q quits"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="codex-deck", description="A terminal app for working with OpenAI Codex."
    )
    parser.add_argument(
        "--demo",
        action="store_true",
        help="run on the built-in offline model in a throw-away workspace",
    )
    parser.add_argument("--version", action="version", version=f"codex-deck {__version__}")
    args = parser.parse_args(argv)
    try:
        settings, warnings = load_settings()
        find_codex(settings.codex.binary)
    except CodexDeckError as error:
        print(f"codex-deck: {error}", file=sys.stderr)
        return 2
    for warning in warnings:
        print(f"codex-deck: {warning}", file=sys.stderr)

    from tui.app import CodexDeckApp
    from tui.backend import demo_backend, live_backend

    opener = demo_backend(settings) if args.demo else live_backend(settings)
    CodexDeckApp(settings, opener, demo_tour=DEMO_TOUR, welcome=WELCOME).run()
    return 0
