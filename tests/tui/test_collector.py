"""The cyclic garbage collector's older generations are collected in quiet moments only (or
after very many young passes), so no long pass freezes the screen while an answer streams."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.tui_figures import rss_mib
from tests.tui.conftest import Deck, until
from tui.collector import FULL_QUIET_SECONDS, QUIET_SECONDS, Collector


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


@pytest.fixture
def collector_in_charge() -> Iterator[None]:
    thresholds = gc.get_threshold()
    gc.collect()
    yield
    gc.set_threshold(*thresholds)
    gc.unfreeze()


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
    collector.settled()
    collector.check()  # quiet since the start: what it left behind is freed
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


@pytest.mark.usefixtures("collector_in_charge")
def test_while_starting_nothing_long_runs_and_then_its_leftovers_are_freed_once() -> None:
    now = [0.0]
    collector = Collector(clock=lambda: now[0])
    collector.start()
    left = old_cycle()  # garbage the start-up left behind
    shown = old_cycle()  # made by the start-up and let go of later (a transcript's widgets)
    kept = shown()
    now[0] = QUIET_SECONDS * 10
    collector.check()
    assert left() is not None, "starting: no pass over the older generations"
    collector.settled()
    collector.check()
    assert left() is None, "settled and quiet: what the start-up left behind is freed"
    del kept
    gc.collect()
    assert shown() is None, "what the start-up made is not set aside: let go of, it is freed"


@pytest.mark.usefixtures("collector_in_charge")
def test_what_exists_at_the_start_is_not_walked_again_but_later_garbage_is_freed() -> None:
    long_lived = Node()
    collector = Collector()
    collector.start()
    assert gc.get_freeze_count() > 0
    assert all(obj is not long_lived for obj in gc.get_objects()), "set aside at the start"
    cycle = old_cycle()
    gc.collect()
    assert cycle() is None, "a cycle made after the start is still freed"


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the RSS from /proc")
@pytest.mark.usefixtures("collector_in_charge")
def test_at_rest_the_heaps_free_memory_goes_back_to_the_system() -> None:
    now = [0.0]
    collector = Collector(clock=lambda: now[0])
    collector.start()
    collector.settled()
    now[0] = QUIET_SECONDS * 1.5
    collector.check()  # what the start-up left behind: freed
    collector.busy()
    pieces = [bytes(2048) for _ in range(20_000)]  # 40 MiB from the C heap, not Python's pools
    kept = pieces[::64]  # one in 64 stays: the heap's free parts lie between pieces in use
    del pieces
    held = rss_mib()
    now[0] += FULL_QUIET_SECONDS * 1.5
    collector.check()
    assert rss_mib() < held - 20, "the free pages went back to the system"
    assert len(kept) == 313


@pytest.mark.anyio
@pytest.mark.usefixtures("collector_in_charge")
async def test_the_app_frees_what_its_start_left_and_sets_nothing_more_aside(
    deck: Deck, full_passes: list[int]
) -> None:
    async with deck() as (_, pilot):
        at_ready = gc.get_freeze_count()
        await until(pilot, lambda: full_passes, "settled and quiet: a full pass")
        assert gc.get_freeze_count() <= at_ready, "what the app made can still be freed"
