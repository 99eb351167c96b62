"""Python's cyclic garbage collector, run so that its long passes fall in quiet moments.

Reference counting frees almost everything as soon as it is dropped; the cyclic collector is
for the rest. Its passes over young objects are short, but a pass over the older generations
walks every object that survived, and took 250 to 450 ms while an answer streamed
(bench.tui_figures): a frozen screen, keys typed into nothing. So the young generation is
collected as usual, in small steps, and the older ones only when nothing has happened for a
while (no key, no event from the engine), or, if that moment never comes, after a great many
young passes. What exists when the app starts is set aside for good (`gc.freeze`): a full
pass at rest went from about 100 to 25 ms.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

YOUNG_THRESHOLD = 2_000
"""New objects between two passes over the young generation (a few ms each)."""
NEVER = 1_000_000_000
"""A threshold the older generations never reach by themselves."""
QUIET_SECONDS = 1.0
"""How long nothing must have happened before the older generations are collected."""
FULL_QUIET_SECONDS = 5.0
"""How long nothing must have happened before a full pass."""
MOST_YOUNG_PASSES = 2_000
"""Young passes after which the middle generation is collected even in a busy moment."""
MOST_MIDDLE_PASSES = 50
"""Passes over the middle generation after which a full pass is made even in a busy one."""
CHECK_SECONDS = 0.5
"""How often the app asks `check` whether it is time."""


class Collector:
    """Tell it when something happens (`busy`); call `check` every CHECK_SECONDS."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._last_busy = clock()
        self._full_done = True

    def start(self) -> None:
        """Take over; what exists by now (modules, classes, the protocol's models: some
        sixty thousand objects that live as long as the app) is set aside, so that no pass
        walks it again. (A pass at this moment finds no garbage, and would take 45 ms.)"""
        gc.freeze()
        gc.set_threshold(YOUNG_THRESHOLD, NEVER, NEVER)

    def busy(self) -> None:
        """A key was pressed or the engine said something."""
        self._last_busy = self._clock()
        self._full_done = False

    def check(self) -> None:
        """Collect the older generations if it is quiet, or if they have waited too long."""
        quiet = self._clock() - self._last_busy
        _, young_passes, middle_passes = gc.get_count()
        if (quiet >= FULL_QUIET_SECONDS and not self._full_done) or (
            middle_passes >= MOST_MIDDLE_PASSES
        ):
            gc.collect()
            self._full_done = True
        elif (quiet >= QUIET_SECONDS and young_passes) or young_passes >= MOST_YOUNG_PASSES:
            gc.collect(1)
