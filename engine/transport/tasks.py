"""A task group whose lone failure surfaces as itself, not wrapped in an ExceptionGroup."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
from anyio.abc import TaskGroup


@asynccontextmanager
async def task_group() -> AsyncIterator[TaskGroup]:
    """Like `anyio.create_task_group()`, but one error is raised as it is.

    Context managers that keep background tasks while their body runs use this, so that
    `async with` callers can catch the errors they expect (`ConnectionClosed` …).
    """
    try:
        async with anyio.create_task_group() as group:
            yield group
    except BaseExceptionGroup as errors:
        if len(errors.exceptions) == 1:
            raise errors.exceptions[0] from None
        raise
