"""A thread's history read back from its latest item, a few hundred items at a time: for a
conversation reopened, and again each time the user goes further back in it.

Codex lists a thread's items newest first, at most 100 a call (`thread/items/list`), each with
its turn, and the turns apart, without their items (`thread/turns/list`), with their status
and times: a thread of 50,000 items opens with its latest few hundred read. A turn comes whole
when it fits, read as codex-deck's trace kept it when the trace saw it whole (see
`history.turn_items`); a turn longer than that comes in parts, newest first, the newest with
the turn's end.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

import anyio
import msgspec
from anyio.abc import TaskGroup

from engine import protocol as wire
from engine.conversations.emitter import Emitter
from engine.conversations.history import turn_items, whole_in_trace
from engine.conversations.item_keys import Item, keyed_items
from engine.conversations.link import Link
from engine.errors import CodexDeckError
from engine.events import EngineEvent
from engine.protocol import ThreadItemEntry, Turn
from engine.transport.appserver import AppServer

ITEMS_PAGE = 100
"""Items asked for a call (codex gives no more)."""
TURNS_PAGE = 50
"""Turns asked for a call (their status and times only)."""
FIRST_ITEMS = 400
"""About how many items a reopened conversation shows first (whole turns, where they fit)."""
EARLIER_ITEMS = 300
"""About how many more items each step back brings."""


class Part(msgspec.Struct):
    """A turn, or the part of it read: its items (oldest first, each under its name), and
    whether the part holds the turn's end (its newest part does)."""

    turn: Turn
    items: list[Item]
    ends: bool


class HistoryPages:
    """A thread's items read back from the latest, part by part (`back`)."""

    def __init__(
        self,
        server: Callable[[], AppServer],
        thread_id: str,
        traced: Callable[[str], list[EngineEvent]],
        from_turn: str | None = None,
    ) -> None:
        self._server = server
        """The codex in use now (it changes when codex is restarted)."""
        self.thread_id = thread_id
        self._traced = traced
        self._read: deque[ThreadItemEntry] = deque()
        """Items read from codex and not given yet, newest first."""
        self._cursor: str | None = None
        self._read_all = False
        self._turns: dict[str, Turn] = {}
        self._turns_cursor: str | None = None
        self._read_all_turns = False
        self._open_turn: str | None = None
        """The oldest turn given, while only its newer part was."""
        self._given_whole: set[str] = set()
        """Turns given whole from the trace while codex's items of them were still coming."""
        self._from_turn = from_turn
        """The newest turn to give: codex's items of later turns are passed over until its
        first comes (a front end that let go of its oldest turns holds the later ones)."""

    @property
    def more(self) -> bool:
        """Codex keeps items older than those given."""
        return bool(self._read) or not self._read_all

    async def read_ahead(self, items: int) -> None:
        """Read from codex until `items` items wait to be given (or there are no more), and
        the first turns' status: what `back` then gives needs codex no more (for a
        conversation reopened at start, read while the others are resumed).

        Raises:
            RpcError, ConnectionClosed: codex could not list them.
        """
        while len(self._read) < items and await self._read_page():
            pass
        if not self._turns and not self._read_all_turns:
            await self._read_turns()

    async def back(self, wanted: int, most_turns: int | None = None) -> list[Part]:
        """The parts before those given (oldest first): about `wanted` items, whole turns
        where they fit (a turn is cut only past twice as many), at most `most_turns` turns.

        Raises:
            RpcError, ConnectionClosed: codex could not list them.
        """
        groups: list[tuple[str, list[Item]]] = []
        taken = 0
        while await self._next():
            entry = self._read[0]
            if not groups or groups[-1][0] != entry.turn_id:
                if taken >= wanted or len(groups) == most_turns:
                    break
                groups.append((entry.turn_id, []))
            elif taken >= 2 * wanted:
                break
            groups[-1][1].append(self._read.popleft().item)
            taken += 1
        parts: list[Part] = []
        for index, (turn_id, newest_first) in enumerate(groups):
            last = index == len(groups) - 1
            starts = not last or not await self._next() or self._read[0].turn_id != turn_id
            parts.append(await self._part(turn_id, newest_first[::-1], starts))
            if last:
                given = starts or turn_id in self._given_whole
                self._open_turn = None if given else turn_id
        return parts[::-1]

    async def _part(self, turn_id: str, items: list[Item], starts: bool) -> Part:
        turn = await self._turn(turn_id)
        ends = turn_id != self._open_turn
        traced = self._traced(turn_id)
        if ends and (starts or whole_in_trace(turn_id, traced)):
            if not starts:
                self._given_whole.add(turn_id)
            return Part(turn, turn_items(turn.replace(items=items), traced), ends=True)
        return Part(turn, keyed_items(turn_id, items), ends)

    async def _next(self) -> bool:
        """Whether an item waits to be given (read from codex if none is read yet)."""
        while True:
            while self._read and self._read[0].turn_id in self._given_whole:
                self._read.popleft()
            while self._read and self._from_turn not in (None, self._read[0].turn_id):
                self._read.popleft()
            if self._read:
                self._from_turn = None
                return True
            if not await self._read_page():
                return False

    async def _read_page(self) -> bool:
        """Read the next page of older items; False when codex has no more."""
        if self._read_all:
            return False
        params = wire.ThreadItemsListParams(
            thread_id=self.thread_id, limit=ITEMS_PAGE, cursor=self._cursor, sort_direction="desc"
        )
        page = await self._server().call("thread/items/list", params, wire.ThreadItemsListResult)
        self._read.extend(page.data)
        self._cursor = page.next_cursor
        self._read_all = page.next_cursor is None or not page.data
        return bool(page.data)

    async def _turn(self, turn_id: str) -> Turn:
        """The turn's status and times (read from codex as far back as needed)."""
        while turn_id not in self._turns and not self._read_all_turns:
            await self._read_turns()
        return self._turns.get(turn_id) or Turn(id=turn_id, status="completed")

    async def _read_turns(self) -> None:
        params = wire.ThreadTurnsListParams(
            thread_id=self.thread_id,
            limit=TURNS_PAGE,
            cursor=self._turns_cursor,
            sort_direction="desc",
            items_view="notLoaded",
        )
        page = await self._server().call("thread/turns/list", params, wire.ThreadTurnsListResult)
        self._turns.update((turn.id, turn) for turn in page.data)
        self._turns_cursor = page.next_cursor
        self._read_all_turns = page.next_cursor is None or not page.data


def pages_of(
    link: Link, emitter: Emitter, conversation_id: str, thread_id: str, from_turn: str | None = None
) -> HistoryPages:
    """The pages of a conversation's thread, read from the codex in use (from its latest
    turn, or from `from_turn` back), its turns merged with the conversation's trace."""
    return HistoryPages(
        lambda: link.server,
        thread_id,
        lambda turn_id: emitter.trace(conversation_id).turn(turn_id),
        from_turn,
    )


class Prefetched:
    """Threads' latest items read from codex ahead of time (while other threads are still
    being resumed at start), each handed over once, to the first who asks for them."""

    def __init__(self) -> None:
        self._pages: dict[str, tuple[HistoryPages, anyio.Event]] = {}

    def start(self, tasks: TaskGroup, conversation_id: str, pages: HistoryPages) -> None:
        """Read the latest items of `pages`' thread now."""
        done = anyio.Event()
        self._pages[conversation_id] = (pages, done)

        async def read() -> None:
            try:
                await pages.read_ahead(2 * FIRST_ITEMS)
            except CodexDeckError:
                pass  # read again when they are asked for, and what failed said then
            finally:
                done.set()

        tasks.start_soon(read)

    async def fetched(self) -> None:
        """Wait until every thread's items asked for have come (or failed)."""
        for _, done in list(self._pages.values()):
            await done.wait()

    async def take(self, conversation_id: str, thread_id: str) -> HistoryPages | None:
        """The pages read ahead for this thread, once; None if there are none."""
        found = self._pages.pop(conversation_id, None)
        if found is None or found[0].thread_id != thread_id:
            return None
        pages, done = found
        await done.wait()
        return pages
