"""A `codex app-server` child process speaking JSON-RPC on its stdin and stdout.

Its stdin is a socket pair and its stdout and stderr are pipes, so it can be spawned before any
event loop runs (`spawn`, at the very start of codex-deck, to start while codex-deck imports)
and taken up later as streams (`AppServerProcess.adopt`). Codex writes each message on its
own: to a pipe that costs both sides less than to a socket (a 20k-token answer: codex
0.975 -> 0.905 s of CPU, the app 490 -> 430 ms; medians of 18 runs each, side by side).
"""

from __future__ import annotations

import contextlib
import io
import math
import os
import re
import signal
import socket
import subprocess
import time
from collections import deque
from pathlib import Path

import anyio
import anyio.lowlevel
import msgspec
from anyio.abc import ByteReceiveStream, ByteSendStream, SocketStream

from engine.errors import CodexNotFound, SettingsError
from engine.transport.launch import Launch

STDERR_LINES = 200
_ESCAPES = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
"""Terminal control sequences (CSI): the colours of codex's log lines."""
EXIT_WAIT_SECONDS = 2.0
"""How long to wait for the exit code after stdout closes, and for each step of closing."""
OUTPUT_SLICE_BYTES = 16 * 1024
"""The most of codex's output handed on in one step of the event loop: about 60 of its
messages. A larger slice makes a fast stream cheaper and keeps keys waiting longer. Against
64 KB, with the UI's frames paced: keystroke p99 while a 20k-token answer streams
74 -> 64 ms (p50 35 -> 21), with eight answers at once 125 -> 78 ms; 10 MB of command output
is shown in 1.5 s instead of 1.1 s."""
OUTPUT_BACKLOG_BYTES = 16 * 1024 * 1024
"""The most of codex's output taken in ahead of its handling; beyond it codex's writes wait.
A flood read slowly once lost some of codex's output deltas; a 10 MB flood fits."""
READ_PACE_SECONDS = 0.0005
"""A read that waits for codex's output takes it in no sooner than this after the last read
that took something in: what comes meanwhile is taken in at once. (What has come before a read
starts is taken in then.) Codex writes each message on its own; read as soon as each
came, a 20k-token answer took some 7,000 reads, each a round of the event loop. Paced, the
app's CPU for that answer went from 585 to 460 ms (medians of 18 runs each, side by side, in
a pty, the scripted model apart; its output a socket then), codex's stayed at 0.91 s. From a
pipe, 605 -> 500 ms (a slower hour). At 1 ms and more codex's own CPU rises (its writes wait)."""
DRAIN_READ_BYTES = 256 * 1024
"""How much of codex's output one read from its pipe takes while it is taken in."""
CODEX_NICE = 10
"""How far codex's own work gives way to codex-deck's when both want the CPU: the nice value
of codex's scheduling group (on Linux, each session is one such group, and codex runs in a
session of its own). The commands codex runs start sessions of their own (seen in every
sandbox mode) and keep their priority. On 2 cores, while a 20k-token answer streamed as fast
as the scripted model sends it, codex took 1.1 cores, and the app's event loop was taken off
the CPU in mid-step (steps of 50-145 ms that used 2-12 ms of CPU). With this, the loop's
longest stall went from 49 to 17 ms and from 36 to 16 ms (medians of 6 runs, in two
side-by-side runs); the answer took as long."""


class Spawned(msgspec.Struct, frozen=True, eq=False):
    """A `codex app-server` just spawned for `launch`: the process and our ends of its
    stdin, stdout and stderr."""

    launch: Launch | None
    """None: not codex started here (ssh, starting it on another machine)."""
    popen: subprocess.Popen[bytes]
    stdin: socket.socket
    stdout: io.FileIO
    """The read end of its stdout's pipe."""
    stderr: io.FileIO
    greeted: bool = False
    """`initialize` was written to it already (`engine.transport.appserver.greet`)."""

    def close(self) -> None:
        """End a process nothing took up: close its stdin (codex exits at its end), kill it
        if it has not exited within `EXIT_WAIT_SECONDS`, then close its output."""
        self.stdin.close()
        try:
            self.popen.wait(EXIT_WAIT_SECONDS)
        except subprocess.TimeoutExpired:
            self.popen.kill()
            self.popen.wait()
        self.stdout.close()
        self.stderr.close()


def spawn(launch: Launch) -> Spawned:
    """Spawn the process (no event loop needed).

    Raises:
        CodexNotFound: the binary cannot be run.
        SettingsError: the working directory is not there.
    """
    env = dict(os.environ)
    if launch.codex_home is not None:
        env["CODEX_HOME"] = str(launch.codex_home)
    env.update(launch.env)
    return spawn_command(launch.argv(), launch.cwd, env, launch)


def spawn_command(
    argv: list[str], cwd: Path, env: dict[str, str], launch: Launch | None = None
) -> Spawned:
    """Spawn `argv`, an app-server speaking on its stdin and stdout (codex's, or ssh's to
    codex on another machine), in a session of its own.

    Raises:
        CodexNotFound: the program cannot be run.
        SettingsError: the working directory is not there.
    """
    stdin, their_stdin = socket.socketpair()
    pipes = [os.pipe() for _ in range(2)]
    ours = [io.FileIO(read, "r") for read, _ in pipes]
    try:
        popen = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdin=their_stdin.fileno(),
            stdout=pipes[0][1],
            stderr=pipes[1][1],
            start_new_session=True,
        )
    except OSError as error:
        stdin.close()
        for end in ours:
            end.close()
        if not os.path.isdir(cwd):
            raise SettingsError(f"cannot start codex in {cwd}: no such directory") from None
        raise CodexNotFound(f"cannot run {argv[0]}: {error.strerror}") from None
    finally:
        their_stdin.close()
        for _, write in pipes:
            os.close(write)
    _give_way(popen.pid)
    stdout, stderr = ours
    return Spawned(launch, popen, stdin, stdout, stderr)


def _give_way(pid: int) -> None:
    """Lower the CPU share of process `pid`'s scheduling group to CODEX_NICE (where the
    system has such groups; elsewhere nothing changes)."""
    with contextlib.suppress(OSError), open(f"/proc/{pid}/autogroup", "w") as group:
        group.write(str(CODEX_NICE))


class OutputStream(ByteReceiveStream):
    """Codex's stdout or stderr, read straight from its pipe. Each read first takes in all
    that has come (so codex never waits on a slow step of ours), then hands on the oldest
    `OUTPUT_SLICE_BYTES` of it, once the rest of the app has had its turn; a read that waits
    for more waits `READ_PACE_SECONDS` at least. (anyio's stream of a process stops the
    reading between two reads: a 20k-token answer came about 10% slower.)"""

    def __init__(self, end: io.FileIO) -> None:
        os.set_blocking(end.fileno(), False)
        self._end: io.FileIO | None = end
        self._backlog = bytearray()
        self._ended: anyio.EndOfStream | anyio.BrokenResourceError | None = None
        """How the output ended, raised once the backlog is handed on."""
        self._taken_at = -math.inf
        """When the last read took something in (`time.monotonic()`)."""

    async def receive(self, max_bytes: int = 65536) -> bytes:
        await anyio.lowlevel.checkpoint()  # the rest of the app runs between two reads
        while True:
            if self._end is None:
                raise anyio.ClosedResourceError
            self._take_in(self._end)
            if self._backlog:
                size = min(max_bytes, OUTPUT_SLICE_BYTES)
                data = bytes(self._backlog[:size])
                del self._backlog[:size]  # cheap: a bytearray drops its head in place
                return data
            if self._ended is not None:
                raise self._ended
            await anyio.wait_readable(self._end)
            wait = self._taken_at + READ_PACE_SECONDS - time.monotonic()
            if wait > 0:
                await anyio.sleep(wait)

    def _take_in(self, end: io.FileIO) -> None:
        while self._ended is None and len(self._backlog) < OUTPUT_BACKLOG_BYTES:
            try:
                data = end.read(DRAIN_READ_BYTES)
            except OSError as error:
                self._ended = anyio.BrokenResourceError()
                self._ended.__cause__ = error
                return
            if data is None:
                return  # nothing more has come
            if not data:
                self._ended = anyio.EndOfStream()
                return
            self._backlog += data
            self._taken_at = time.monotonic()

    async def aclose(self) -> None:
        end, self._end = self._end, None
        self._backlog.clear()
        if end is not None:
            anyio.notify_closing(end)
            end.close()
        await anyio.lowlevel.checkpoint()


class AppServerProcess:
    """The process, its last stderr lines, and a graceful close.

    A transport for `engine.transport.appserver.open_app_server`.
    """

    def __init__(
        self,
        popen: subprocess.Popen[bytes],
        send: ByteSendStream,
        receive: ByteReceiveStream,
        error_output: ByteReceiveStream,
    ) -> None:
        self._popen = popen
        self._stderr: deque[str] = deque(maxlen=STDERR_LINES)
        self.send = send
        self.receive = receive
        self._error_output = error_output
        self.name = "codex app-server"
        """What the process is, as its ending is told."""

    @classmethod
    async def start(cls, launch: Launch) -> AppServerProcess:
        """Spawn the process and take it up.

        Raises:
            CodexNotFound: the binary cannot be run.
            SettingsError: the working directory is not there.
        """
        return await cls.adopt(spawn(launch))

    @classmethod
    async def adopt(cls, spawned: Spawned) -> AppServerProcess:
        """Take up a spawned process (its sockets become this transport's streams)."""
        # Shielded: a cancel here would leave the process with nothing holding it.
        with anyio.CancelScope(shield=True):
            send = await SocketStream.from_socket(spawned.stdin)
        return cls(spawned.popen, send, OutputStream(spawned.stdout), OutputStream(spawned.stderr))

    @property
    def pid(self) -> int:
        return self._popen.pid

    @property
    def returncode(self) -> int | None:
        """The exit code once the process has exited (negative: killed by that signal)."""
        return self._popen.poll()

    def handshaken(self) -> None:
        """Its start-up warnings (codex's about trust, bubblewrap, PATH aliases: every start)
        are let go: a close after this is told with what it wrote later."""
        self._stderr.clear()

    async def run(self) -> None:
        """Keep reading stderr (a full pipe would block codex) until it closes; its lines are
        kept as text, without the colours codex's log writes."""
        pending = b""
        with contextlib.suppress(anyio.ClosedResourceError):  # closed by `aclose`
            async for chunk in self._error_output:
                *lines, pending = (pending + chunk).split(b"\n")
                self._stderr.extend(_plain(line) for line in lines)
        if pending:
            self._stderr.append(_plain(pending))

    async def describe_close(self) -> str:
        """Why stdout closed: the exit code or signal, and the last stderr lines."""
        with anyio.move_on_after(EXIT_WAIT_SECONDS):
            await self._wait()
        code = self.returncode
        if code is None:
            what = f"{self.name} closed its output but is still running"
        elif code < 0:
            what = f"{self.name} was killed by {_signal_name(-code)}"
        else:
            what = f"{self.name} exited with code {code}"
        tail = _meaningful(list(self._stderr))[-5:]
        return what + (": " + " | ".join(tail) if tail else "")

    async def aclose(self) -> None:
        """Close stdin, then terminate, then kill, waiting a little after each step; then
        close its output."""
        with anyio.CancelScope(shield=True):
            with contextlib.suppress(OSError, anyio.BrokenResourceError):
                await self.send.aclose()
            for stop in (None, self._popen.terminate, self._popen.kill):
                if self.returncode is not None:
                    break
                if stop is not None:
                    try:
                        stop()
                    except ProcessLookupError:
                        break
                with anyio.move_on_after(EXIT_WAIT_SECONDS):
                    await self._wait()
            for stream in (self.receive, self._error_output):
                await stream.aclose()

    async def _wait(self) -> None:
        """Until the process has exited (in a thread, given up on when cancelled)."""
        await anyio.to_thread.run_sync(self._popen.wait, abandon_on_cancel=True)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _meaningful(lines: list[str]) -> list[str]:
    """Stderr lines worth showing: not blank, and not a Rust stack backtrace."""
    if "Stack backtrace:" in lines:
        last = len(lines) - 1 - lines[::-1].index("Stack backtrace:")
        lines = lines[:last]
    return [line for line in lines if line.strip()]


def _plain(line: bytes) -> str:
    """A line of stderr as text, its colour codes dropped."""
    return _ESCAPES.sub("", line.decode("utf-8", "replace")).rstrip()
