"""The process's free heap memory given back to the system.

What Python frees goes back to the C allocator, which keeps it for later: the free chunks
between the ones still in use stay part of the process's memory. After a long streak of work
(two hundred long answers, each drawn a frame at a time) some 7 to 11 MiB of the heap were
free but still held (glibc's `mallinfo2`), and that part grew with the work. `trim` asks
glibc to give the free pages back (`malloc_trim`), which takes a few milliseconds: done in a
quiet moment, after a full pass of the collector. Elsewhere (another C library) it does
nothing.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from functools import cache


@cache
def _malloc_trim() -> Callable[[int], int] | None:
    try:
        trim: Callable[[int], int] = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):  # not glibc
        return None
    return trim


def trim() -> None:
    """Give the heap's free pages back to the system."""
    malloc_trim = _malloc_trim()
    if malloc_trim is not None:
        malloc_trim(0)
