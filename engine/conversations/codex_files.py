"""Files on the machine codex runs on, read and written through codex (its `fs/` methods):
the same on this machine, a listening host or an ssh one."""

from __future__ import annotations

import base64

from engine import protocol as wire
from engine.transport.appserver import AppServer


async def read_text(server: AppServer, path: str) -> str:
    """The file at `path` (absolute, there), as UTF-8 text.

    Raises:
        RpcError, ConnectionClosed: codex could not read it (it is not there, say).
        UnicodeDecodeError: it is not UTF-8 text.
    """
    read = await server.call("fs/readFile", wire.FsReadFileParams(path=path), wire.FsFile)
    return base64.b64decode(read.data_base64).decode("utf-8")


async def write_text(server: AppServer, path: str, text: str) -> None:
    """Write `text` (UTF-8) as the whole file at `path`.

    Raises:
        RpcError, ConnectionClosed: codex could not write it.
    """
    data = base64.b64encode(text.encode()).decode()
    params = wire.FsWriteFileParams(path=path, data_base64=data)
    await server.call("fs/writeFile", params, wire.EmptyResult)


async def remove(server: AppServer, path: str) -> None:
    """Remove the file at `path`.

    Raises:
        RpcError, ConnectionClosed: codex could not remove it.
    """
    await server.call("fs/remove", wire.FsRemoveParams(path=path), wire.EmptyResult)
