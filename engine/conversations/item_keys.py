"""codex-deck's id for each item of a turn.

Codex passes on the ids the model provider gave its output items (messages, reasoning, tool
calls), and providers do not all make them unique: many local and proxy servers send `msg_0`
in every response. So an item is named by its turn and codex's id, numbered from the second
time a turn starts an item of that id: `TURN/msg_0`, `TURN/msg_0#2`. A turn read back from
codex (`thread/read`) names its items the same way, in the order it lists them.
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.protocol import KnownItem, UnknownItem

Item = KnownItem | UnknownItem
TURNS_KEPT = 2
"""Turns whose names are kept: the running one and the one before (codex was seen sending a
command's last output after the next items)."""


def item_key(turn_id: str, item_id: str, occurrence: int = 1) -> str:
    """The name of the `occurrence`-th item of id `item_id` that the turn started."""
    name = f"{turn_id}/{item_id}"
    return name if occurrence == 1 else f"{name}#{occurrence}"


def keyed(item: Item, key: str) -> Item:
    """`item` under codex-deck's name for it."""
    return item if item.id == key else item.replace(id=key)


def keyed_items(turn_id: str, items: Iterable[Item]) -> list[Item]:
    """A turn's items as codex lists them, each under its name."""
    seen: dict[str, int] = {}
    named = []
    for item in items:
        seen[item.id] = seen.get(item.id, 0) + 1
        named.append(keyed(item, item_key(turn_id, item.id, seen[item.id])))
    return named


class ItemKeys:
    """The names of a conversation's live items, as they start, stream and complete."""

    def __init__(self) -> None:
        self._turns: dict[str, dict[str, tuple[int, bool]]] = {}
        """For each turn kept, codex's item id: how often it started, and whether the latest
        one completed."""

    def started(self, turn_id: str, item_id: str) -> str:
        """The name of an item starting: a new one when the turn had an item of that id."""
        items = self._turn(turn_id)
        count, _ = items.get(item_id, (0, False))
        items[item_id] = (count + 1, False)
        return item_key(turn_id, item_id, count + 1)

    def streaming(self, turn_id: str, item_id: str) -> str:
        """The name of the item a delta belongs to: the latest one of that id."""
        items = self._turn(turn_id)
        count, _ = items.setdefault(item_id, (1, False))
        return item_key(turn_id, item_id, count)

    def completed(self, turn_id: str, item_id: str) -> str:
        """The name of an item completing: the latest one of that id (a new one when that
        completed already, and nothing started in between)."""
        items = self._turn(turn_id)
        count, done = items.get(item_id, (0, True))
        if done:
            count += 1
        items[item_id] = (count, True)
        return item_key(turn_id, item_id, count)

    def _turn(self, turn_id: str) -> dict[str, tuple[int, bool]]:
        items = self._turns.get(turn_id)
        if items is None:
            items = self._turns[turn_id] = {}
            for old in list(self._turns)[:-TURNS_KEPT]:
                del self._turns[old]
        return items
