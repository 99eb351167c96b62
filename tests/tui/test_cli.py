"""The `codex-deck` command: what it refuses before the UI starts."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import pty
import re
import select
import signal
import socket
import sqlite3
import struct
import subprocess
import sys
import termios
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path

import anyio

from engine.transport.websocket import WebSocketTransport, connect
from tests.conftest import local_settings
from tests.reliability.report import Ledger

COMMAND = Path(sys.executable).parent / "codex-deck"


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(COMMAND), *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **(env or {})},
    )


def read_until(terminal: int, text: bytes, what: str, seconds: float = 60) -> bytes:
    """What a pty's program writes, read until `text` is in it."""
    said = b""
    deadline = time.monotonic() + seconds
    while text not in said:
        remaining = deadline - time.monotonic()
        assert remaining > 0, f"timed out waiting for {what}: {said[-500:]!r}"
        if select.select([terminal], [], [], remaining)[0]:
            said += os.read(terminal, 1 << 16)
    return said


def test_version() -> None:
    result = run("--version")
    assert result.returncode == 0
    assert result.stdout.startswith("codex-deck 0.")


def test_a_bad_settings_file_is_one_clear_error(isolated_settings: Path) -> None:
    isolated_settings.write_text('[codex]\nsandbox = "wide-open"\n')
    result = run("--demo")
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.startswith(f"codex-deck: {isolated_settings}: codex.sandbox: ")


def test_a_missing_codex_binary_is_named(tmp_path: Path) -> None:
    result = run("--demo", env={"CODEX_DECK_CODEX__BINARY": str(tmp_path / "codex")})
    assert result.returncode == 2
    assert "is not an executable file" in result.stderr


def test_version_names_the_codex_binary_and_its_version() -> None:
    result = run("--version")
    lines = result.stdout.splitlines()
    assert lines[0].startswith("codex-deck 0.")
    assert "(bundled openai-codex-cli-bin): codex-cli 0.163.0" in lines[1]


def test_version_works_with_a_broken_settings_file_and_says_what_is_wrong(
    isolated_settings: Path,
) -> None:
    isolated_settings.write_text("[store\npath = 3\n")
    result = run("--version")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("codex-deck 0.")
    assert "codex-cli 0." in lines[1]
    assert "the settings cannot be read: " in lines[1]
    assert "not valid TOML" in lines[1]


def test_a_subcommands_help_lists_only_what_applies_to_it() -> None:
    def listed(*command: str) -> set[str]:
        return set(re.findall(r"^ +(--[a-z-]+)", run(*command, "--help").stdout, re.MULTILINE))

    assert listed("config") == {"--config", "--edit"}
    assert listed("replay") == {"--config", "--conversation", "--speed", "--paused"}
    assert "--record" not in listed("serve")
    assert {"--connect", "--port", "--public"} <= listed("serve")


def test_config_shows_each_setting_with_where_it_comes_from(isolated_settings: Path) -> None:
    isolated_settings.write_text(
        '[codex]\nmodel = "from-file"\nsandbox = "read-only"\n'
        '[providers.local]\nbase_url = "http://127.0.0.1:9/v1"\napi_key = "sk-verysecretvalue123"\n'
        '[store]\npath = "/tmp/somewhere.sqlite3"\n'
    )
    result = run("config", env={"CODEX_DECK_CODEX__MODEL": "from-env"})
    assert result.returncode == 0, result.stderr
    lines = {line.split(" = ")[0].strip(): line for line in result.stdout.splitlines()}
    assert lines["codex.model"].endswith('"from-env"    # env $CODEX_DECK_CODEX__MODEL')
    assert lines["codex.sandbox"].endswith('"read-only"    # file')
    assert lines["codex.approval_policy"].endswith('"on-request"    # default')
    assert result.stdout.splitlines()[0] == f"# settings file: {isolated_settings}"
    assert "# store: /tmp/somewhere.sqlite3" in result.stdout
    assert "sk-verysecretvalue123" not in result.stdout
    assert "providers.local.api_key" in result.stdout
    assert "unknown key 'providers.local.api_key'" in result.stdout
    assert "store" not in result.stderr


def test_config_shows_where_a_host_token_is_read_from_not_the_token(
    isolated_settings: Path, tmp_path: Path
) -> None:
    """A token file's path is no secret (`config` masked it: the user could not see which
    file a host's token is read from); the token in it is never read into the report."""
    token = tmp_path / "box.token"
    token.write_text("the-token-itself-42")
    isolated_settings.write_text(
        f'[hosts.box]\nurl = "ws://127.0.0.1:4500"\ntoken_file = "{token}"\n'
    )
    result = run("config")
    assert result.returncode == 0, result.stderr
    lines = {line.split(" = ")[0].strip(): line for line in result.stdout.splitlines()}
    assert lines["hosts.box.token_file"].endswith(f'"{token}"    # file')
    assert "the-token-itself-42" not in result.stdout


def test_config_edit_opens_the_editor_and_checks_the_file(
    isolated_settings: Path, tmp_path: Path
) -> None:
    editor = tmp_path / "editor"
    editor.write_text('#!/bin/sh\nprintf \'[ui]\\nthem = "dark"\\n\' > "$1"\n')
    editor.chmod(0o755)
    result = run("config", "--edit", env={"EDITOR": str(editor), "VISUAL": ""})
    assert result.returncode == 0
    assert isolated_settings.read_text() == '[ui]\nthem = "dark"\n'
    assert "unknown key 'ui.them' is ignored; did you mean 'theme'?" in result.stderr
    assert (
        result.stdout.strip() == f"codex-deck: {isolated_settings} is read, with the warnings above"
    )


def test_config_edit_that_saves_a_broken_file_puts_the_previous_back(
    isolated_settings: Path, tmp_path: Path
) -> None:
    isolated_settings.write_text('[codex]\nmodel = "mine"\n')
    editor = tmp_path / "editor"
    editor.write_text("#!/bin/sh\nprintf '[codex\\n' > \"$1\"\n")
    editor.chmod(0o755)
    result = run("config", "--edit", env={"EDITOR": str(editor), "VISUAL": ""})
    assert result.returncode == 2
    assert "not valid TOML" in result.stderr
    assert "the previous file is back" in result.stderr
    assert isolated_settings.read_text() == '[codex]\nmodel = "mine"\n'
    rejected = isolated_settings.with_name(isolated_settings.name + ".rejected")
    assert rejected.read_text() == "[codex\n"
    assert run("--version").returncode == 0
    assert "the settings cannot be read" not in run("--version").stdout


def test_config_edit_in_a_terminal_offers_the_editor_again(
    isolated_settings: Path, tmp_path: Path
) -> None:
    """The first save is broken; asked, the user answers e, and the second save is good."""
    editor = tmp_path / "editor"
    editor.write_text(
        "#!/bin/sh\n"
        f'if [ -e {tmp_path}/once ]; then printf \'[codex]\\nmodel = "fixed"\\n\' > "$1"\n'
        f"else touch {tmp_path}/once; printf '[codex\\n' > \"$1\"; fi\n"
    )
    editor.chmod(0o755)
    master, slave = pty.openpty()
    env = {**os.environ, "CODEX_DECK_CONFIG": str(isolated_settings), "EDITOR": str(editor)}
    edit = subprocess.Popen(
        [str(COMMAND), "config", "--edit"], stdin=slave, stdout=slave, stderr=slave, env=env
    )
    os.close(slave)
    try:
        said = read_until(master, b"[e/r]", "the question")
        os.write(master, b"e\n")
        assert edit.wait(timeout=30) == 0
    finally:
        os.close(master)
        edit.kill()
        edit.wait()
    assert b"not valid TOML" in said
    assert isolated_settings.read_text() == '[codex]\nmodel = "fixed"\n'


def test_config_names_paths_that_cannot_be_used_and_a_wire_api_codex_refuses(
    isolated_settings: Path, tmp_path: Path
) -> None:
    (tmp_path / "a-dir").mkdir()
    isolated_settings.write_text(
        f'[codex]\nbinary = "{tmp_path}/no-codex"\n[store]\npath = "{tmp_path}/a-dir"\n'
    )
    result = run("config")
    warned = [line for line in result.stdout.splitlines() if line.startswith("# warning: ")]
    store = f"store.path {tmp_path}/a-dir is a directory; it must name a file"
    binary = f"codex.binary {tmp_path}/no-codex is not an executable file"
    assert f"# warning: {isolated_settings}: {store}" in warned
    assert f"# warning: {isolated_settings}: {binary}" in warned
    isolated_settings.write_text('[providers.old]\nbase_url = "http://x/v1"\nwire_api = "chat"\n')
    refused = run("config")
    assert refused.returncode == 2
    assert "providers.old.wire_api" in refused.stderr
    assert "'responses'" in refused.stderr


def test_config_names_a_theme_and_a_binding_there_are_not(isolated_settings: Path) -> None:
    """`config` and `config --edit` said such a file was valid; the app ignored both."""
    isolated_settings.write_text('[ui]\ntheme = "nrod"\nkeys = {"app.quitt" = "ctrl+x"}\n')
    result = run("config")
    assert result.returncode == 0, result.stderr
    warned = [line for line in result.stdout.splitlines() if line.startswith("# warning: ")]
    assert warned == [
        "# warning: [ui] theme 'nrod' is no theme here, so the default is used; "
        "did you mean 'nord'?",
        "# warning: [ui] keys: 'app.quitt' is no binding's id, so 'ctrl+x' does nothing; "
        "did you mean 'app.quit'? (F1 shows each key's id in brackets)",
    ]


def test_a_cwd_that_is_not_a_directory_is_refused(tmp_path: Path) -> None:
    result = run("--demo", "--cwd", str(tmp_path / "nowhere"))
    assert result.returncode == 2
    assert result.stderr.strip() == f"codex-deck: --cwd {tmp_path / 'nowhere'}: not a directory"


def test_config_flag_names_the_settings_file(tmp_path: Path) -> None:
    chosen = tmp_path / "chosen.toml"
    chosen.write_text('[codex]\nsandbox = "wide-open"\n')
    result = run("--config", str(chosen), "--demo")
    assert result.returncode == 2
    assert result.stderr.startswith(f"codex-deck: {chosen}: codex.sandbox: ")


@contextmanager
def serving(port: int, *flags: str) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """`codex-deck serve` on `port` (with `flags`, else `--demo`), with the link it printed
    once it listens."""
    server = subprocess.Popen(
        [str(COMMAND), "serve", "--port", str(port), *(flags or ["--demo"])],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        said = []
        for line in server.stdout:  # textual-serve's banner, then ours once the port is bound
            said.append(line.strip())
            if said[-1].startswith("codex-deck: serving on "):
                break
        link = said[-1].removeprefix("codex-deck: serving on ")
        assert link.startswith(f"http://127.0.0.1:{port}/?secret="), said
        yield server, link
    finally:
        server.terminate()
        server.wait(timeout=30)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_serve_answers_the_link_it_prints_with_the_app_page(isolated_settings: Path) -> None:
    port = free_port()
    with serving(port) as (_, link):
        secret = link.split("?secret=")[1]
        assert len(secret) >= 32
        page, cookie = fetch(link)
        assert "<div>codex-deck</div>" in page
        loads = r"(?:href=\"|src=\"|url\(|@import \")(?:https?|wss?)://([^/\"':]+)"
        hosts = set(re.findall(loads, page))
        assert hosts <= {"127.0.0.1", "localhost"}, f"the page loads from {hosts}"
        assert f'data-session-websocket-url="ws://127.0.0.1:{port}/ws"' in page
        assert cookie.startswith(f"codex-deck-secret-{port}={secret};")
        assert "HttpOnly" in cookie
        assert "SameSite=Strict" in cookie
        url = f"ws://127.0.0.1:{port}/ws?width=110&height=30&secret={secret}"
        screen = anyio.run(session_output, url)
        assert b"offline demo" in screen


def test_serve_refuses_whoever_lacks_its_secret(isolated_settings: Path, tally: Ledger) -> None:
    """Any account on the machine reached the page on 127.0.0.1, and its websocket ran the
    app: it drove the user's codex."""
    port = free_port()
    with serving(port) as (_, link):
        secret = link.split("?secret=")[1]
        base = f"http://127.0.0.1:{port}"
        refused = [
            status(f"{base}/"),
            status(f"{base}/?secret=guess"),
            status(f"{base}/static/js/textual.js"),
            status(f"{base}/ws?width=80&height=24", websocket=True),
            status(f"{base}/ws?secret={secret}", websocket=True, origin="http://evil.example"),
        ]
        allowed = status(f"{base}/", cookie=f"codex-deck-secret-{port}={secret}")
    tally(
        "security",
        "`serve` asked without its secret (page, file, websocket, foreign page): refused",
        unapproved=sum(code != 403 for code in refused),
    )
    assert refused == [403] * 5
    assert allowed == 200


def test_serve_ends_its_sessions_on_sigterm(isolated_settings: Path) -> None:
    """SIGTERM with a browser session open: each session's app quits, its codex with it, and
    serve exits 0 at once (it waited some 20 s for the browser to leave, then the app's
    process was torn from a closed loop: `RuntimeError: Event loop is closed`)."""
    port = free_port()
    with serving(port) as (server, link):
        secret = link.split("?secret=")[1]
        url = f"ws://127.0.0.1:{port}/ws?width=110&height=30&secret={secret}"

        async def open_then_end() -> list[tuple[int, str]]:
            transport = await connect(url)
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(transport.run)
                await demo_shown(transport)
                family = descendants(server.pid)
                tasks.start_soon(drain, transport)  # as a browser reads on
                server.send_signal(signal.SIGTERM)
                await anyio.to_thread.run_sync(partial(server.wait, timeout=10))
                tasks.cancel_scope.cancel()
            return family

        family = anyio.run(open_then_end)
        assert server.returncode == 0
        assert server.stderr is not None
        assert "Event loop is closed" not in server.stderr.read()
    ours = [
        (pid, command) for pid, command in family if "-m tui" in command or "app-server" in command
    ]
    assert len(ours) >= 2, family  # the session's app and its codex
    assert [(pid, command) for pid, command in ours if Path(f"/proc/{pid}").exists()] == []


def test_serve_stopped_with_an_approval_waiting_declines_it(
    isolated_settings: Path, model_url: str, tmp_path: Path
) -> None:
    """As in a terminal (tests/reliability/test_terminal_loss.py): SIGTERM to serve while a
    browser session's approval waits expires it in the store, as codex-deck closing, and the
    command is not run."""
    workspace = local_settings(isolated_settings, model_url, tmp_path)
    port = free_port()
    with serving(port, "--cwd", str(workspace)) as (server, link):
        secret = link.split("?secret=")[1]
        url = f"ws://127.0.0.1:{port}/ws?width=110&height=30&secret={secret}"

        async def ask_then_end() -> None:
            transport = await connect(url)
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(transport.run)
                await shown(transport, b"codex online")
                await transport.send.send(json.dumps(["stdin", "approval\r"]).encode())
                await shown(transport, b"Run this command?")
                tasks.start_soon(drain, transport)
                server.send_signal(signal.SIGTERM)
                await anyio.to_thread.run_sync(partial(server.wait, timeout=30))
                tasks.cancel_scope.cancel()

        anyio.run(ask_then_end)
        assert server.returncode == 0
    with sqlite3.connect(tmp_path / "store.sqlite3") as store:
        rows = store.execute("SELECT kind, state, decision FROM interactions").fetchall()
    assert not (workspace / "out.txt").exists(), "the command was not run"
    [(kind, state, decision)] = rows
    assert (kind, state) == ("command", "expired")
    assert "codex-deck is closing" in decision


async def drain(transport: WebSocketTransport) -> None:
    """Read what the app draws until the server closes the websocket, then close it too."""
    async for _ in transport.receive:
        pass
    await transport.aclose()


def descendants(pid: int) -> list[tuple[int, str]]:
    """The processes under `pid` (its children, theirs, and so on), with their commands."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, frontier = [], [pid]
    while frontier:
        parent = frontier.pop()
        children = [child for child, its in parents.items() if its == parent]
        found += children
        frontier += children
    commands = []
    for child in found:
        with contextlib.suppress(OSError):
            command = Path(f"/proc/{child}/cmdline").read_bytes().replace(b"\0", b" ")
            commands.append((child, command.decode()))
    return commands


def status(url: str, websocket: bool = False, cookie: str = "", origin: str = "") -> int:
    """The HTTP status `url` answers with (a websocket's upgrade when `websocket`)."""
    headers = {"Cookie": cookie} if cookie else {}
    if origin:
        headers["Origin"] = origin
    if websocket:
        headers |= {
            "Connection": "Upgrade",
            "Upgrade": "websocket",
            "Sec-WebSocket-Version": "13",
            "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
        }
    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return error.code


async def session_output(url: str) -> bytes:
    """What a browser session's app draws, until the demo's status bar shows."""
    transport = await connect(url)
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(transport.run)
        seen = await demo_shown(transport)
        tasks.cancel_scope.cancel()
    await transport.aclose()
    return seen


async def demo_shown(transport: WebSocketTransport) -> bytes:
    """What the session's app draws until the demo's status bar shows (a minute at most)."""
    return await shown(transport, b"offline demo")


async def shown(transport: WebSocketTransport, text: bytes) -> bytes:
    """What the session's app draws until `text` shows (a minute at most)."""
    seen = b""
    with anyio.fail_after(60):
        while text not in seen:
            seen += await transport.receive.receive()
    return seen


def fetch(url: str) -> tuple[str, str]:
    """The page at `url` (the server said it listens), and the cookie it sets."""
    with urllib.request.urlopen(url, timeout=30) as response:
        assert response.status == 200
        return str(response.read().decode()), str(response.headers.get("Set-Cookie", ""))


def test_serve_on_a_busy_or_impossible_port_says_so() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = taken.getsockname()[1]
        result = run("serve", "--port", str(busy))
    assert result.returncode == 2
    assert result.stderr.strip().endswith(
        f"codex-deck: cannot serve on 127.0.0.1:{busy}: Address already in use"
    )
    assert "Traceback" not in result.stderr
    impossible = run("serve", "--port", "99999")
    assert impossible.returncode == 2
    assert "'99999' is no port: give a number from 1 to 65535" in impossible.stderr


def test_serving_beyond_this_machine_needs_public(tally: Ledger) -> None:
    result = run("serve", "--host", "0.0.0.0")
    tally(
        "security",
        "`serve` beyond this machine without --public: refused",
        unapproved=int(result.returncode != 2),
    )
    assert result.returncode == 2
    assert "add --public to do it anyway" in result.stderr


def test_an_unauthenticated_app_server_on_another_machine_needs_insecure(
    tmp_path: Path, tally: Ledger
) -> None:
    remote = "ws://192.0.2.7:4500"
    refused = run("--connect", remote, "--version")
    tally(
        "security",
        "--connect ws:// to another machine without a token: refused",
        unapproved=int(refused.returncode != 2),
    )
    assert refused.returncode == 2
    assert "192.0.2.7 is not this machine and no --token-file was given" in refused.stderr
    assert "add --insecure to connect anyway" in refused.stderr
    assert run("--connect", remote, "--insecure", "--version").returncode == 0
    token = tmp_path / "token"
    token.write_text("a-long-capability-token-1234\n")
    assert run("--connect", remote, "--token-file", str(token), "--version").returncode == 0
    assert run("--connect", "ws://127.0.0.1:4500", "--version").returncode == 0


def test_replay_refuses_a_file_that_is_not_a_recording(tmp_path: Path) -> None:
    path = tmp_path / "notes.jsonl"
    path.write_text('{"hello": 1}\n')
    result = run("replay", str(path))
    assert result.returncode == 2
    assert (
        result.stderr
        == f"codex-deck: {path}: not a codex-deck recording (no recording header on line 1)\n"
    )


def test_replay_refuses_a_speed_that_is_not_above_zero(tmp_path: Path) -> None:
    result = run("replay", str(tmp_path / "any.jsonl"), "--speed", "0")
    assert result.returncode == 2
    assert "'0': the speed must be above 0" in result.stderr


def test_record_refuses_a_file_it_cannot_write(tmp_path: Path) -> None:
    result = run("--demo", "--record", str(tmp_path / "missing" / "session.jsonl"))
    assert result.returncode == 2
    assert result.stderr.startswith(f"codex-deck: --record {tmp_path}/missing/session.jsonl: ")
    assert "No such file or directory" in result.stderr


def test_without_a_terminal_it_says_it_needs_one(tmp_path: Path) -> None:
    """With its input at end of file the app spun at 140 % CPU, unseen, and ignored SIGTERM:
    `timeout 5 codex-deck replay rec.jsonl </dev/null | …` was alive 12 minutes later."""
    recording = Path(__file__).parents[1] / "snapshots" / "recordings" / "markdown.jsonl"
    for args in (["--demo"], ["replay", str(recording)]):
        started = time.monotonic()
        result = subprocess.run(
            [str(COMMAND), *args],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert result.returncode == 2
        assert result.stderr.startswith("codex-deck: this is a terminal app"), result.stderr
        assert time.monotonic() - started < 10


def test_the_app_closes_when_its_terminal_goes_away(isolated_settings: Path) -> None:
    """A terminal that disappears without a hang-up signal (here: a pty that is not the
    app's controlling terminal, closed under it) must not leave the app running unseen."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    app = subprocess.Popen(
        [str(COMMAND), "--demo"],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env={**os.environ, "CODEX_DECK_CONFIG": str(isolated_settings), "TERM": "xterm-256color"},
    )
    os.close(slave)
    try:
        read_until(master, b"offline demo", "the app to get ready")
    finally:
        os.close(master)
    try:
        assert app.wait(timeout=20) == 0
    finally:
        app.kill()
        app.wait()
