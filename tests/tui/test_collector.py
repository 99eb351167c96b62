"""The cyclic garbage collector's older generations are collected in quiet moments only (or
after very many young passes), so no long pass freezes the screen while an answer streams."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from tui.collector import QUIET_SECONDS, Collector


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


@pytest.fixture
def collector_in_charge() -> Iterator[None]:
    thresholds = gc.get_threshold()
    gc.collect()
    yield
    gc.set_threshold(*thresholds)


def old_cycle() -> weakref.ref[Node]:
    """Garbage that only the collector frees, past the young generation."""
    first, second = Node(), Node()
    first.other, second.other = second, first
    gc.collect(0)  # still referenced: moved on to the middle generation
    return weakref.ref(first)


@pytest.mark.usefixtures("collector_in_charge")
def test_the_older_generations_wait_for_a_quiet_moment() -> None:
    now = [0.0]
    collector = Collector(clock=lambda: now[0])
    collector.start()
    collector.busy()
    cycle = old_cycle()
    for _ in range(3):
        gc.collect(0)  # young passes, as allocations make them
    assert cycle() is not None, "young passes leave the middle generation alone"
    now[0] = QUIET_SECONDS / 2
    collector.check()
    assert cycle() is not None, "not yet quiet: nothing long runs"
    now[0] = QUIET_SECONDS * 1.5
    collector.check()
    assert cycle() is None, "quiet: the middle generation is collected"
