"""The `codex-deck` command."""

from __future__ import annotations

import argparse
import gc
import math
import os
import shlex
import signal
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from engine import find_codex
from engine.errors import CodexDeckError, SettingsError
from engine.settings import CONFIG_ENV, Settings, config_path
from engine.version import __version__
from tui.addresses import checked_connection
from tui.first_frame import ENDINGS, FirstFrame
from tui.startup import Startup, read_settings

if TYPE_CHECKING:
    from tui.app import CodexDeckApp
    from tui.parsed_css import ParsedCss

DEMO_TOUR = """\
Welcome to the codex-deck demo. The real Codex engine runs on a local scripted model: no account, \
no network, and a throw-away workspace. Try typing:

  show markdown      a streamed answer
  run a command      the agent runs `ls` in the sandbox
  approval           a command that waits for your approval (ctrl+g goes to it, then y or n)
  create a file      a file change, shown as a diff
  do it all          reasoning, an approved command, a new file and an answer
  take your time     an answer that keeps going: Esc stops it, or type `change course` to steer

F1 lists every key · ctrl+t shows the live trace · ctrl+n starts another conversation · \
ctrl+q quits"""

WELCOME = """\
Type a message for Codex and press Enter. `/` completes commands · F1 lists every key · \
ctrl+t shows the live trace · ctrl+q quits"""


OPTIONS: dict[str, dict[str, Any]] = {
    "--demo": {
        "action": "store_true",
        "help": "run on the built-in offline model in a throw-away workspace",
    },
    "--cwd": {"type": Path, "help": "working directory of new conversations"},
    "--config": {"type": Path, "help": f"settings file (else ${CONFIG_ENV} or the default)"},
    "--conversation": {"metavar": "ID", "help": "open with this conversation shown"},
    "--connect": {
        "metavar": "URL",
        "help": "attach to a running `codex app-server --listen URL` (unix:///PATH or ws://HOST:PORT)",
    },
    "--token-file": {"type": Path, "help": "with --connect ws://…: the capability token's file"},
    "--insecure": {
        "action": "store_true",
        "help": "with --connect ws://… to another machine: connect without a --token-file",
    },
    "--record": {
        "type": Path,
        "metavar": "FILE",
        "help": "save the session's events with their timing to FILE (JSONL: `replay` plays it)",
    },
}
"""The options of the app; a subcommand takes those that apply to it."""
SERVED = ("--demo", "--cwd", "--config", "--connect", "--token-file", "--insecure")
"""What `serve` passes on to each browser session's app."""


def options(after_a_command: bool, only: Iterable[str] = OPTIONS) -> argparse.ArgumentParser:
    """The options every form of the command takes (`only` these), before or after a
    subcommand (after one, an option not given must not undo the same option given before
    it)."""
    shared = argparse.ArgumentParser(add_help=False)
    keep: dict[str, Any] = {"default": argparse.SUPPRESS} if after_a_command else {}
    for flag in only:
        shared.add_argument(flag, **OPTIONS[flag], **keep)
    return shared


def port(text: str) -> int:
    """A TCP port number (argparse's check of `serve --port`)."""
    if not text.isdigit() or not 1 <= int(text) <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is no port: give a number from 1 to 65535")
    return int(text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="codex-deck",
        description="A terminal app for working with OpenAI Codex.",
        parents=[options(after_a_command=False)],
    )
    parser.add_argument("--version", action="store_true", help="print the versions and exit")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    config = commands.add_parser(
        "config",
        parents=[options(after_a_command=True, only=["--config"])],
        help="print the settings with where each comes from",
    )
    config.add_argument("--edit", action="store_true", help="open the settings file in $EDITOR")
    serve = commands.add_parser(
        "serve",
        parents=[options(after_a_command=True, only=SERVED)],
        help="run codex-deck in a web browser (textual-serve)",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    serve.add_argument("--port", type=port, default=8000, help="port to listen on (8000)")
    serve.add_argument(
        "--public",
        action="store_true",
        help="allow an address other than loopback (anyone who reaches it drives your codex)",
    )
    replay = commands.add_parser(
        "replay",
        parents=[options(after_a_command=True, only=["--config", "--conversation"])],
        help="play a recording in the app: no codex, no account, nothing sent",
    )
    replay.add_argument("file", type=Path, metavar="FILE", help="a file saved with --record")
    replay.add_argument(
        "--speed",
        type=speed,
        default=1.0,
        metavar="X",
        help="X times as fast as recorded, or `max` for all at once (1); long pauses are shortened",
    )
    replay.add_argument(
        "--paused", action="store_true", help="start paused (f10 steps an item, f9 plays)"
    )
    args = parser.parse_args(argv)
    if args.config is not None:
        os.environ[CONFIG_ENV] = str(args.config.expanduser().resolve())
    if args.command == "config" and args.edit:
        return edit_config()
    if args.command == "serve":
        from tui.serve import serve_in_browser

        return serve_in_browser(args)
    try:
        if args.command == "replay":
            return play_recording(read_settings(args)[0], args)
        if args.record is not None:
            check_writable(args.record)
        if args.cwd is not None:
            args.cwd = args.cwd.expanduser().resolve()
            if not args.cwd.is_dir():
                raise SettingsError(f"--cwd {args.cwd}: not a directory")
        if args.token_file is not None and not args.token_file.is_file():
            raise SettingsError(f"--token-file {args.token_file}: not a file")
        warnings = []
        if args.connect:
            warnings += checked_connection(args.connect, args.token_file, args.insecure)
        if args.version:
            return print_versions(args)
        if args.command == "config" or not has_terminal():
            # Nothing is painted: the settings are read and checked first, and said here.
            settings, more = read_settings(args)
            if args.command == "config":
                print_config(settings, warnings + more)
                return 0
            for warning in warnings + more:
                print(f"codex-deck: {warning}", file=sys.stderr)
            return no_terminal()
    except CodexDeckError as error:
        print(f"codex-deck: {error}", file=sys.stderr)
        return 2
    return run_app(args, warnings)


def print_versions(args: argparse.Namespace) -> int:
    """codex-deck's version, and the codex it runs with: the settings' binary, or, when the
    settings cannot be read, the one found without them (and what is wrong with them)."""
    print(f"codex-deck {__version__}")
    problem = ""
    try:
        binary = find_codex(read_settings(args)[0].codex.binary)
    except SettingsError as error:
        problem = f" (the settings cannot be read: {error})"
        binary = find_codex(None)
    except CodexDeckError as error:
        print(f"codex: {error}")
        return 0
    print(f"codex {binary.path} ({binary.source}): {binary_version(binary.path)}{problem}")
    return 0


def run_app(args: argparse.Namespace, warnings: list[str]) -> int:
    """The app, on the first frame's settings: the rest are read, and codex started, once
    that frame is painted (`tui.startup`). A frame like it is painted first, while the app
    is imported (`tui.first_frame`); what is typed on it goes on in the app."""
    for ending in ENDINGS:
        # Until the app takes these over: end by unwinding, so that what was started ahead
        # (codex, the demo's place and model) is closed on the way out.
        signal.signal(ending, end_as_told)
    from tui.collector import young_passes_only

    young_passes_only()
    startup: Startup | None = None
    frame: FirstFrame | None = None
    css: ParsedCss | None = None
    try:
        startup = Startup(args, warnings)
        welcome = DEMO_TOUR if args.demo else WELCOME  # the first frame says what comes
        ui = startup.settings.ui
        # Keys of the user's own would show otherwise in the app's key bar: no frame before.
        frame = FirstFrame.open(welcome, ui.theme) if not ui.keys else None
        startup.greet()
        app = make_app(args, startup, welcome)
        css = parsed_css()
        if frame is not None:
            from tui.widgets.draft import Draft  # imported with the app

            typed = frame.hand_over()
            lines = typed.text.split("\n")
            app.first_typed = Draft(typed.text, (len(lines) - 1, len(lines[-1])), typed.held)
            app.quit_asked = typed.quit
        gc.freeze()  # what start-up made stays: the collector need not walk it again
        # From here until the app has its own handlers (it unblocks them then), one of these
        # waits: ending by unwinding in the middle of Textual's start would leave the
        # terminal half taken over.
        signal.pthread_sigmask(signal.SIG_BLOCK, ENDINGS)
        frame = None  # the app takes the terminal over from the frame
        app.run()
    except BaseException:
        if frame is not None:
            frame.close()
        raise
    finally:
        if startup is not None:
            startup.close()
        if css is not None:
            css.keep()
    if args.record is not None:
        print(f"codex-deck: recorded to {args.record}; `codex-deck replay {args.record}` plays it")
    return 0


def parsed_css() -> ParsedCss:
    """The app's CSS as parsed in an earlier run, taken by every stylesheet from now on."""
    from tui.parsed_css import ParsedCss, kept_at
    from tui.private import keep_parsed_css

    css = ParsedCss(kept_at())
    keep_parsed_css(css)
    return css


def end_as_told(number: int, _: FrameType | None) -> None:
    raise SystemExit(128 + number)


def make_app(args: argparse.Namespace, startup: Startup, welcome: str) -> CodexDeckApp:
    """The app, on what `startup` opens."""
    from tui.app import CodexDeckApp, SignIn

    sign_in = SignIn(
        open_account=startup.open_account,
        open_live=startup.open_live,
        offer_at_start=not args.demo,
    )
    return CodexDeckApp(
        startup.settings,
        startup.open_demo if args.demo else startup.open_live,
        demo_tour=DEMO_TOUR,
        welcome=welcome,
        conversation=args.conversation,
        sign_in=sign_in,
        hints=startup.hints,
        record=args.record,
        prepare=startup.prepare,
        check_again=startup.check_again,
        attached=bool(args.connect),
        open_unstored=None if args.demo else startup.open_unstored,
    )


def has_terminal() -> bool:
    """Input and output are a terminal (or textual-serve's driver, which brings its own):
    with input at end of file the app would spin, unseen, until killed."""
    if os.environ.get("TEXTUAL_DRIVER"):
        return True
    streams = (sys.__stdin__, sys.__stdout__)
    return all(stream is not None and stream.isatty() for stream in streams)


def no_terminal() -> int:
    print(
        "codex-deck: this is a terminal app: run it with its input and output on a terminal "
        "(or `codex-deck serve` for a web browser).",
        file=sys.stderr,
    )
    return 2


def speed(text: str) -> float:
    """A replay speed: a positive number, or `max`."""
    if text == "max":
        return math.inf
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number or `max`") from None
    if not value > 0 or math.isinf(value):
        raise argparse.ArgumentTypeError(f"{text!r}: the speed must be above 0")
    return value


def check_writable(path: Path) -> None:
    """Make (or empty) the recording's file now, so a bad path is said before the app starts."""
    try:
        path.write_text("", encoding="utf-8")
    except OSError as error:
        raise SettingsError(f"--record {path}: cannot be written: {error.strerror}") from None


def play_recording(settings: Settings, args: argparse.Namespace) -> int:
    """`codex-deck replay FILE`: the recording in the app, read-only."""
    from engine import RecordingError, read_recording
    from engine.replay import replay_backend
    from tui.app import CodexDeckApp

    try:
        events = read_recording(args.file)
    except RecordingError as error:
        print(f"codex-deck: {error}", file=sys.stderr)
        return 2
    if not events:
        print(f"codex-deck: {args.file}: the recording has no events", file=sys.stderr)
        return 2
    if not has_terminal():
        return no_terminal()
    pace = "all at once" if math.isinf(args.speed) else f"at {args.speed:g}× speed"
    tour = (
        f"Replay of {args.file} ({len(events)} events, {pace}): it shows what happened and "
        "sends nothing. f9 pauses and plays · f10 steps an item · ctrl+q quits"
    )
    app = CodexDeckApp(
        settings,
        replay_backend(events, args.speed, args.paused),
        demo_tour=tour,
        conversation=args.conversation,
    )
    app.run()
    return 0


def binary_version(path: Path) -> str:
    """What `codex --version` says."""
    try:
        done = subprocess.run(
            [str(path), "--version"], capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"its version could not be read ({error})"
    return done.stdout.strip() or done.stderr.strip() or f"exit code {done.returncode}"


def print_config(settings: Settings, warnings: list[str]) -> None:
    path = config_path()
    print(f"# settings file: {path}{'' if path.exists() else ' (not there; defaults apply)'}")
    from engine import default_path

    print(f"# store: {settings.store.path or default_path()}")
    from engine.settings_source import settings_report

    rows = settings_report(settings)
    width = max(len(key) for key, _, _ in rows)
    for key, value, source in rows:
        print(f"{key:<{width}} = {value}    # {source}")
    from tui.keymap import ui_problems

    for warning in warnings + ui_problems(settings.ui):
        print(f"# warning: {warning}")


def edit_config() -> int:
    """Open the settings file in $VISUAL or $EDITOR, then check what was saved. A file that
    cannot be read is not left for every later start to fail on: in a terminal, the editor
    opens again or the previous file comes back, as the user says; elsewhere the previous
    file comes back and the rejected one is kept beside it."""
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    before = path.read_bytes() if path.exists() else None
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    from engine.settings_source import load_settings

    while True:
        try:
            subprocess.run([*shlex.split(editor), str(path)], check=False)
        except OSError as error:
            print(
                f"codex-deck: cannot run the editor {editor!r}: {error.strerror}", file=sys.stderr
            )
            return 2
        try:
            settings, warnings = load_settings()
            break
        except CodexDeckError as error:
            print(f"codex-deck: {error}", file=sys.stderr)
        if sys.stdin.isatty():
            answer = input("codex-deck: e edits it again, r puts the previous file back [e/r] ")
            if answer.strip().lower() in ("", "e"):
                continue
        rejected = path.with_name(path.name + ".rejected")
        path.replace(rejected)
        if before is not None:  # the user's alone, as settings can hold a key
            with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as f:
                f.write(before)
        kept = "the previous file is back" if before is not None else "there is no file now"
        print(f"codex-deck: {kept}; what was saved is in {rejected}", file=sys.stderr)
        return 2
    from tui.keymap import ui_problems

    warnings += ui_problems(settings.ui)
    for warning in warnings:
        print(f"codex-deck: {warning}", file=sys.stderr)
    print(f"codex-deck: {path} is {'read, with the warnings above' if warnings else 'valid'}")
    return 0
