"""The `codex-deck` command.

Until the terminal UI lands, it checks the set-up in plain text: it finds codex, asks it for
the signed-in account, and — with `--demo`, or when there is no account — starts the engine
on the offline scripted model and prints a streamed answer.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import anyio

from engine.appserver import AppServer, spawn_app_server
from engine.binary import find_codex
from engine.errors import CodexDeckError
from engine.launch import launch_for, thread_defaults
from engine.offline import offline_settings
from engine.protocol import (
    AccountReadParams,
    AgentMessageDelta,
    TextInput,
    ThreadStartParams,
    TurnCompleted,
    TurnStartParams,
)
from engine.scripted_model import run_scripted_model
from engine.settings import Settings, load_settings

DEFAULT_PROMPT = "show markdown"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="codex-deck",
        description="A terminal app for working with OpenAI Codex (set-up check for now).",
    )
    parser.add_argument(
        "--demo",
        action="store_true",
        help="use the built-in offline model even when a Codex account is signed in",
    )
    parser.add_argument(
        "--prompt",
        default=DEFAULT_PROMPT,
        help=f"what to ask the offline model (default: {DEFAULT_PROMPT!r})",
    )
    args = parser.parse_args(argv)
    try:
        return anyio.run(_check, args.demo, args.prompt)
    except CodexDeckError as error:
        print(f"codex-deck: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


async def _check(demo: bool, prompt: str) -> int:
    settings, warnings = load_settings()
    for warning in warnings:
        print(f"codex-deck: {warning}", file=sys.stderr)
    binary = find_codex(settings.codex.binary)
    print(f"codex: {binary.path} ({binary.source})")
    if not demo:
        cwd = settings.codex.cwd or Path.cwd()
        async with spawn_app_server(launch_for(settings, binary.path, cwd)) as server:
            account = await server.account_read(AccountReadParams())
        if account.account is not None or not account.requires_openai_auth:
            who = account.account.type if account.account is not None else "no sign-in needed"
            print(f"Codex is ready ({who}). The terminal UI is not built yet;")
            print("`codex-deck --demo` shows a streamed answer from the offline model.")
            return 0
        print("No Codex account is signed in: using the offline scripted model.")
    return await _offline_answer(settings, binary.path, prompt)


async def _offline_answer(settings: Settings, binary: Path, prompt: str) -> int:
    with tempfile.TemporaryDirectory(prefix="codex-deck-") as scratch:
        home, workspace = Path(scratch, "codex-home"), Path(scratch, "workspace")
        await anyio.Path(home).mkdir()
        await anyio.Path(workspace).mkdir()
        async with run_scripted_model() as model:
            offline = offline_settings(settings, model, home)
            async with spawn_app_server(launch_for(offline, binary, workspace)) as server:
                return await _stream_answer(server, offline, workspace, prompt)


async def _stream_answer(server: AppServer, settings: Settings, cwd: Path, prompt: str) -> int:
    print(f"> {prompt}\n")
    async with server.notifications() as notifications:
        defaults = thread_defaults(settings, cwd)
        opened = await server.thread_start(ThreadStartParams(**defaults.model_dump()))
        await server.turn_start(
            TurnStartParams(thread_id=opened.thread.id, input=[TextInput(text=prompt)])
        )
        async for notification in notifications:
            if isinstance(notification, AgentMessageDelta):
                print(notification.delta, end="", flush=True)
            elif isinstance(notification, TurnCompleted):
                turn = notification.turn
                error = f": {turn.error.message}" if turn.error is not None else ""
                print(f"\n\n[turn {turn.status} in {turn.duration_ms} ms{error}]")
                return 0 if turn.status == "completed" else 1
    print("\n[the app-server closed before the turn completed]")
    return 1
