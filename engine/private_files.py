"""Files codex-deck keeps for itself between runs (what was checked or parsed last), the
user's alone."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def replace_private(target: Path, data: bytes) -> None:
    """Put `data` at `target` whole or not at all, readable by the user alone (0600, in a
    folder made 0700). Nothing is written where it cannot be: what it is kept for is made
    again the next time."""
    with contextlib.suppress(OSError):
        target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        written = target.with_suffix(f".{os.getpid()}.tmp")
        descriptor = os.open(written, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "wb") as file:
            file.write(data)
        written.replace(target)


def read_private(path: Path) -> bytes | None:
    """What the file at `path` holds, if the user alone could have written it (theirs, and
    writable by no one else); None otherwise, or if it cannot be read."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return None
    with os.fdopen(descriptor, "rb") as file:
        status = os.fstat(file.fileno())
        if status.st_uid != os.getuid() or status.st_mode & 0o022:
            return None
        try:
            return file.read()
        except OSError:
            return None
