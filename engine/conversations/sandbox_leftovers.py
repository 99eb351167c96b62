"""What codex's Linux sandbox leaves behind when a command in it is killed.

The sandbox reserves a few names in each writable root (`.git`, `.codex`, `.agents`, `.aws`)
as empty mount targets and removes them when the command ends, but not when its helper is
killed (openai/codex#31599): empty directories stay in the workspace and in /tmp, and git, go
and codex's own turn diff then take /tmp for a repository. A `!command` codex-deck stopped is
killed so; the reserved names that were not there before it are removed after it, if they are
still empty directories. That goes through codex (`fs/*`), so it holds where codex runs.

A command the model left running in the background is killed so too when codex ends: when
codex-deck started codex on this machine, the reserved names not there at its start are removed
(here, codex is gone then) once codex has ended, if they are empty directories."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable

import anyio

from engine import protocol as wire
from engine.errors import ConnectionClosed, RpcError
from engine.transport.appserver import AppServer

RESERVED = (".git", ".codex", ".agents", ".aws")
"""The names codex's sandbox reserves in a writable root."""
TEMPORARY_ROOT = "/tmp"
"""A writable root of every workspace-write sandbox, beside the working directory."""


async def absent(server: AppServer, cwd: str) -> list[str]:
    """The reserved paths not there now, in the working directory and in /tmp."""
    paths = [f"{root.rstrip('/')}/{name}" for root in (cwd, TEMPORARY_ROOT) for name in RESERVED]
    there: set[str] = set()

    async def look(path: str) -> None:
        try:
            await server.fs_get_metadata(wire.FsGetMetadataParams(path=path))
        except RpcError:
            return  # not there
        there.add(path)

    async with anyio.create_task_group() as looking:
        for path in paths:
            looking.start_soon(look, path)
    return [path for path in paths if path not in there]


async def remove_left(server: AppServer, paths: list[str]) -> list[str]:
    """Remove each of `paths` that is now an empty directory; returns the ones removed."""
    removed: list[str] = []
    for path in paths:
        try:
            found = await server.fs_get_metadata(wire.FsGetMetadataParams(path=path))
            if not found.is_directory:
                continue
            listed = await server.fs_read_directory(wire.FsReadDirectoryParams(path=path))
            if listed.entries:
                continue  # the command made it (a `git init`, say): it is the user's
            await server.fs_remove(wire.FsRemoveParams(path=path, recursive=False))
        except RpcError:
            continue  # not there (the sandbox cleaned up after itself)
        except ConnectionClosed:
            break
        removed.append(path)
    return removed


def absent_here(roots: Iterable[str]) -> list[str]:
    """The reserved paths not there now in each of `roots` and in /tmp, on this machine."""
    names = {f"{root.rstrip('/')}/{name}" for root in {*roots, TEMPORARY_ROOT} for name in RESERVED}
    return sorted(path for path in names if not os.path.lexists(path))


def remove_left_here(paths: Iterable[str]) -> list[str]:
    """Remove each of `paths` that is an empty directory on this machine now; the removed."""
    removed = []
    for path in paths:
        with contextlib.suppress(OSError):  # gone meanwhile, or not ours to remove
            if os.path.isdir(path) and not os.path.islink(path) and not os.listdir(path):
                os.rmdir(path)
                removed.append(path)
    return removed
