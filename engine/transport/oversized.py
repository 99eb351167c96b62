"""What a message from codex that was over the line limit can still say.

Such a line is skipped (`BadLine`), but its start and end are kept. When it was a turn's end
(`turn/completed` carries every item of the turn, so a turn with a huge answer makes a huge
line), the start names the thread and the turn and the end holds the turn's status: enough
to end the turn here, without its items, instead of leaving it running for ever.
"""

from __future__ import annotations

import json
import re

from engine import protocol as wire
from engine.transport.rpc import BadLine

_TURN_END = re.compile(r'^\{"method"\s*:\s*"turn/completed"')
_THREAD = re.compile(r'"threadId"\s*:\s*"([^"]+)"')
_TURN = re.compile(r'"turn"\s*:\s*\{\s*"id"\s*:\s*"([^"]+)"')
_STATUS = re.compile(r'"status"\s*:\s*"(inProgress|completed|interrupted|failed)"')
_ERROR = re.compile(r'"error"\s*:\s*\{\s*"message"\s*:\s*("(?:[^"\\]|\\.)*")')
_DURATION = re.compile(r'"durationMs"\s*:\s*(\d+)')


def thread_of(line: BadLine) -> str | None:
    """The thread a skipped line names, if its start or its end does."""
    found = _THREAD.search(line.excerpt) or _THREAD.search(line.tail)
    return found.group(1) if found is not None else None


def turn_end(line: BadLine) -> wire.TurnCompleted | None:
    """The turn's end a skipped `turn/completed` line announced (without its items), or
    None when the line was something else or its ends do not say enough."""
    head, tail = line.excerpt, line.tail
    thread, turn = thread_of(line), _TURN.search(head)
    statuses = _STATUS.findall(tail)
    if not _TURN_END.match(head) or thread is None or turn is None or not statuses:
        return None
    error = _ERROR.search(tail)
    duration = _DURATION.search(tail)
    return wire.TurnCompleted(
        thread_id=thread,
        turn=wire.Turn(
            id=turn.group(1),
            status=statuses[-1],
            error=wire.TurnError(message=json.loads(error.group(1))) if error else None,
            duration_ms=int(duration.group(1)) if duration else None,
        ),
    )
