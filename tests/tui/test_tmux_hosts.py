"""A deck of machines as a person uses it, in a real terminal: the local codex, an
app-server on a unix socket and codex over ssh (a local sshd), each listed under its name and
state; a conversation started on the ssh host by typing; its approval card left alone by prose
typed as it comes, then answered with /approve typed in another host's conversation; the ssh
connection dropped and made again, shown in the list."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from engine.transport.websocket import connect
from tests.conftest import local_settings
from tests.e2e.test_sign_in import API_KEY
from tests.reliability.test_host_faults import ssh_client_of
from tests.tui.test_cli import drain, free_port, serving, shown
from tests.tui.test_tmux_typing import PROSE, flat, type_slowly
from tests.tui.tmux import COMMAND, Terminal, message_box, quit_app

CARD = "Run this command?"
MOST_KEYS = 300
ROOT = Path(__file__).parents[2]


@pytest.fixture
def hosts(tmp_path: Path, model_url: str) -> Iterator[tuple[str, Path]]:
    """The other hosts' `[hosts]` tables, and where their files are."""
    root = tmp_path / "hosts"
    world = subprocess.Popen(
        [sys.executable, "-m", "tests.e2e.hosts_world", str(root), model_url],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    assert world.stdout is not None
    assert world.stdin is not None
    try:
        said = []
        for line in world.stdout:
            if line.strip() == "ready":
                break
            said.append(line)
        assert said, "the hosts did not start"
        yield "".join(said), root
    finally:
        world.stdin.close()
        world.wait(30)


def port_of(tables: str) -> int:
    found = re.search(r"ssh://[^@]+@127\.0\.0\.1:(\d+)", tables)
    assert found is not None, tables
    return int(found[1])


def test_three_hosts_typed_at_as_a_person_does(
    terminal: Terminal,
    isolated_settings: Path,
    model_url: str,
    tmp_path: Path,
    hosts: tuple[str, Path],
) -> None:
    tables, root = hosts
    local_workspace = local_settings(isolated_settings, model_url, tmp_path)
    (local_workspace / "box-notes.md").write_text("a file an @box would find\n")
    isolated_settings.write_text(isolated_settings.read_text() + "\n" + tables)
    terminal.type(f"CODEX_DECK_CONFIG={isolated_settings} {COMMAND}", "Enter")
    for heading in ("LOCAL ● online", "SOCK ● online", "BOX ● online"):
        terminal.wait_for(heading)

    # `/new @box` and Enter at once: a host, not the file it also matches.
    type_slowly(terminal, "", "/new @box")
    terminal.type("Enter")
    terminal.wait_for("New conversation")
    assert "box-notes.md" not in terminal.screen()

    type_slowly(terminal, "", "/new ")  # which host? all of them offered
    for name in ("@local", "@sock", "@box"):
        terminal.wait_for(f"{name}  start the conversation on this host")
    type_slowly(terminal, "/new ", "@b")  # narrowed as the name is typed
    terminal.wait_until(lambda: "@sock  start" not in terminal.screen(), "only @box offered")
    terminal.wait_for("@box  start the conversation on this host")
    terminal.type("Tab")
    terminal.wait_until(lambda: message_box(terminal.screen()) == "/new @box", "the host put in")
    type_slowly(terminal, "/new @box ", "on the box")
    terminal.type("Enter")
    terminal.wait_for("on the box")
    assert "box: codex online" in terminal.screen()  # the status bar follows the host in view
    terminal.type("C-n")  # a new conversation on the host in view
    terminal.wait_for("Conversation 4")
    listed = [line.split("▎")[0].strip() for line in terminal.screen().splitlines()]
    box = listed.index("BOX ● online")
    assert listed.index("· Conversation 4") > box
    assert listed.index("· on the box") > box
    assert listed.index("· New conversation") > box
    assert "box: codex online" in terminal.screen()

    type_slowly(terminal, "", "approval")
    terminal.type("Enter")
    typed = ""
    while CARD not in terminal.screen() and len(typed) < MOST_KEYS:
        type_slowly(terminal, typed, PROSE[len(typed) % len(PROSE)])
        typed += PROSE[len(typed) % len(PROSE)]
    type_slowly(terminal, typed, PROSE)
    typed += PROSE
    screen = terminal.screen()
    assert flat(message_box(screen)) == flat(typed)
    assert "accepted" not in screen
    assert "declined" not in screen
    box_workspace = root / "box-workspace"
    assert not (box_workspace / "out.txt").exists()
    found = re.search(r"/approve (\w+)", screen)
    assert found is not None, screen
    request = found[1]

    # To the local conversation; the box's request counts there too, and is answered there.
    terminal.type("C-Up")
    terminal.wait_for("local: codex online")
    for _ in typed:
        terminal.type("BSpace")
    terminal.wait_until(lambda: message_box(terminal.screen()).startswith("Write to codex"), "box")
    type_slowly(terminal, "", f"/approve {request}")
    terminal.type("Enter")
    terminal.wait_until(lambda: (box_workspace / "out.txt").exists(), "out.txt on the box")
    assert (box_workspace / "out.txt").read_text() == "hi-from-exec\n"
    assert not (local_workspace / "out.txt").exists()
    assert not (root / "sock-workspace" / "out.txt").exists()

    # The ssh connection drops: the list says the box reconnects, then that it is back.
    os.kill(ssh_client_of(port_of(tables)), signal.SIGKILL)
    terminal.wait_for("BOX … reconnecting")
    terminal.wait_for("BOX ● online")
    quit_app(terminal)


def test_the_terminal_and_a_browser_answer_the_same_request_on_a_listening_host(
    terminal: Terminal,
    isolated_settings: Path,
    model_url: str,
    tmp_path: Path,
    hosts: tuple[str, Path],
) -> None:
    """`codex-deck serve` on the same settings as the terminal app, opened first: the
    conversation the terminal then starts on the listening host comes into the browser's app
    as its first turn starts; the browser follows the turn, is asked what it asks, and
    answers it; codex closes the terminal's card."""
    tables, root = hosts
    local_settings(isolated_settings, model_url, tmp_path)
    isolated_settings.write_text(isolated_settings.read_text() + "\n" + tables)
    terminal.type(f"CODEX_DECK_CONFIG={isolated_settings} {COMMAND}", "Enter")
    terminal.wait_for("SOCK ● online")

    port = free_port()
    with serving(port, "--config", str(isolated_settings)) as (_, link):
        secret = link.split("?secret=")[1]
        url = f"ws://127.0.0.1:{port}/ws?width=120&height=36&secret={secret}"

        async def answer_in_the_browser() -> None:
            browser = await connect(url)
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(browser.run)
                await shown(browser, b"SOCK")
                type_slowly(terminal, "", "/new @sock shared work")
                terminal.type("Enter")
                terminal.wait_for("sock: codex online")
                type_slowly(terminal, "", "approval")
                terminal.type("Enter")  # sent in the terminal
                await anyio.to_thread.run_sync(terminal.wait_for, CARD)
                await shown(browser, b"shared work")
                await shown(browser, b"NEEDS ATTENTION")
                # ctrl+g goes to the request, in whichever conversation it waits; the key bar
                # then shows the card's keys; y answers.
                await browser.send.send(json.dumps(["stdin", "\x07"]).encode())
                await shown(browser, b"Approve")
                await browser.send.send(json.dumps(["stdin", "y"]).encode())
                tasks.start_soon(drain, browser)
                await anyio.to_thread.run_sync(terminal.wait_for, "codex no longer needs an answer")
                tasks.cancel_scope.cancel()

        anyio.run(answer_in_the_browser)
    assert (root / "sock-workspace" / "out.txt").read_text() == "hi-from-exec\n"
    terminal.wait_until(lambda: f"⚠ {CARD} [" not in terminal.screen(), "nothing to wait for")
    assert "NEEDS ATTENTION" not in terminal.screen()
    quit_app(terminal)


def test_a_signed_out_local_codex_with_hosts_is_offered_a_sign_in_and_the_hosts_work(
    terminal: Terminal,
    isolated_settings: Path,
    model_url: str,
    tmp_path: Path,
    hosts: tuple[str, Path],
) -> None:
    """The local codex has no account (codex's own OpenAI provider, pointed at the scripted
    model), the other hosts are up: the app offers to sign the local one in at start (no demo
    instead: the hosts are the user's), esc leaves it for later, the hosts work meanwhile;
    /login brings it back, a pasted key signs the local codex in (masked, never shown), and
    it answers then."""
    tables, _ = hosts
    workspace, home = tmp_path / "ws", tmp_path / "home"
    workspace.mkdir()
    home.mkdir()
    isolated_settings.write_text(
        f'[codex]\nmodel = "gpt-5.5"\nhome = "{home}"\ncwd = "{workspace}"\n'
        f'config = [\'openai_base_url="{model_url}"\', "features.plugins=false"]\n'
        f'[store]\npath = "{tmp_path / "store.sqlite3"}"\n\n{tables}'
    )
    terminal.type(f"CODEX_DECK_CONFIG={isolated_settings} {COMMAND}", "Enter")
    terminal.wait_for("The codex on this machine has no account signed in")
    assert "Offline demo" not in terminal.screen()
    terminal.type("Escape")
    for heading in ("LOCAL ● online", "SOCK ● online", "BOX ● online"):
        terminal.wait_for(heading)

    type_slowly(terminal, "", "/new @sock on the socket")
    terminal.type("Enter")
    terminal.wait_for("on the socket")
    type_slowly(terminal, "", "count for me")
    terminal.type("Enter")
    terminal.wait_for("turn completed")

    terminal.type("C-n")  # a new conversation on the host in view: the socket's
    type_slowly(terminal, "", "/login")
    terminal.type("Enter")
    terminal.wait_for("Sign in to Codex")
    assert "Offline demo" not in terminal.screen()
    terminal.type("Enter")  # the first way: an API key
    terminal.wait_for("sk-…")
    terminal.tmux("set-buffer", "-b", "key", API_KEY)
    terminal.tmux("paste-buffer", "-p", "-b", "key", "-t", terminal.name)
    terminal.type("Enter")
    terminal.wait_for("Signed in")
    assert API_KEY not in terminal.screen()

    listed = [line.split("▎")[0].strip() for line in terminal.screen().splitlines()]
    # The local conversation made at start, two up the list.
    assert listed.index("· Conversation 1") < listed.index("SOCK ● online")
    terminal.type("C-Up")
    terminal.type("C-Up")
    terminal.wait_for("local: codex online")
    type_slowly(terminal, "", "/account")
    terminal.type("Enter")
    terminal.wait_for("Signed in with an API key")
    type_slowly(terminal, "", "count for me")
    terminal.type("Enter")
    terminal.wait_for("one two three four five")  # the local codex answers now
    quit_app(terminal)
