"""A `codex app-server` child process speaking JSON-RPC on its stdin and stdout."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections import deque

import anyio
from anyio.abc import ByteReceiveStream, ByteSendStream, Process

from engine.errors import CodexNotFound
from engine.launch import Launch

STDERR_LINES = 200
EXIT_WAIT_SECONDS = 2.0
"""How long to wait for the exit code after stdout closes, and for each step of closing."""


class AppServerProcess:
    """The process, its last stderr lines, and a graceful close.

    A transport for `engine.appserver.open_app_server`.
    """

    def __init__(self, process: Process, argv: list[str]) -> None:
        self._process = process
        self._argv = argv
        self._stderr: deque[str] = deque(maxlen=STDERR_LINES)
        assert process.stdin is not None
        assert process.stdout is not None
        self.send: ByteSendStream = process.stdin
        self.receive: ByteReceiveStream = process.stdout

    @classmethod
    async def start(cls, launch: Launch) -> AppServerProcess:
        """Spawn the process.

        Raises:
            CodexNotFound: the binary cannot be run.
        """
        env = dict(os.environ)
        if launch.codex_home is not None:
            env["CODEX_HOME"] = str(launch.codex_home)
        env.update(launch.env)
        argv = launch.argv()
        try:
            # Shielded: a cancel while the process is being made would leave it running
            # with nothing holding it. Once it exists, `aclose` ends it.
            with anyio.CancelScope(shield=True):
                process = await anyio.open_process(
                    argv,
                    cwd=launch.cwd,
                    env=env,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    start_new_session=True,
                )
        except OSError as error:
            raise CodexNotFound(f"cannot run {launch.binary}: {error.strerror}") from None
        return cls(process, argv)

    @property
    def pid(self) -> int:
        return self._process.pid

    @property
    def returncode(self) -> int | None:
        """The exit code once the process has exited (negative: killed by that signal)."""
        return self._process.returncode

    def stderr_tail(self) -> list[str]:
        """The last lines the process wrote to stderr."""
        return list(self._stderr)

    async def run(self) -> None:
        """Keep reading stderr (a full pipe would block codex) until it closes."""
        stream = self._process.stderr
        assert stream is not None
        pending = b""
        async for chunk in stream:
            *lines, pending = (pending + chunk).split(b"\n")
            self._stderr.extend(line.decode("utf-8", "replace").rstrip() for line in lines)
        if pending:
            self._stderr.append(pending.decode("utf-8", "replace").rstrip())

    async def describe_close(self) -> str:
        """Why stdout closed: the exit code or signal, and the last stderr lines."""
        with anyio.move_on_after(EXIT_WAIT_SECONDS):
            await self._process.wait()
        code = self._process.returncode
        if code is None:
            what = "codex app-server closed its output but is still running"
        elif code < 0:
            what = f"codex app-server was killed by {_signal_name(-code)}"
        else:
            what = f"codex app-server exited with code {code}"
        tail = _meaningful(list(self._stderr))[-5:]
        return what + (": " + " | ".join(tail) if tail else "")

    async def aclose(self) -> None:
        """Close stdin, then terminate, then kill, waiting a little after each step."""
        with anyio.CancelScope(shield=True):
            with contextlib.suppress(OSError, anyio.BrokenResourceError):
                await self.send.aclose()
            for stop in (None, self._process.terminate, self._process.kill):
                if self._process.returncode is not None:
                    break
                if stop is not None:
                    try:
                        stop()
                    except ProcessLookupError:
                        break
                with anyio.move_on_after(EXIT_WAIT_SECONDS):
                    await self._process.wait()


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
