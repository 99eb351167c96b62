"""Python's cyclic garbage collector, run so that its long passes fall in quiet moments.

Reference counting frees almost everything as soon as it is dropped; the cyclic collector is
for the rest. Its passes over young objects are short, but a pass over the older generations
walks every object that survived, and took 250 to 450 ms while an answer streamed
(bench.tui_figures): a frozen screen, keys typed into nothing. So the young generation is
collected as usual, in small steps, and the older ones only when nothing has happened for a
while (no key, no event from the engine), or, if that moment never comes, after a great many
young passes. What exists when the app starts is set aside for good (`gc.freeze`): a full
pass at rest went from about 100 to 25 ms. While the app starts (the engine and the main
screen are imported after the first paint), no pass waits for a quiet moment: one over the
older generations then took 30-45 ms of the start. Once it has settled, the first quiet
moment frees what the start-up left behind (some five thousand objects). Nothing made after
the start is set aside: an object set aside is never collected, and what the app makes (the
widgets of a transcript, a conversation) is let go of later, in cycles only a pass can free.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import Literal

from tui import heap

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


def young_passes_only() -> None:
    """Collect the young generation by itself, the older ones only when `Collector.check`
    asks. Set from before the app's import on (`tui.cli`): the start-up makes modules,
    classes and the first screens, which live as long as the app, and each pass over the
    older generations walked them again (some 10 ms of the 150 ms of CPU the app's import
    takes)."""
    gc.set_threshold(YOUNG_THRESHOLD, NEVER, NEVER)


class Collector:
    """Tell it when something happens (`busy`) and when the start-up is over (`settled`); call
    `check` every CHECK_SECONDS."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._last_busy = clock()
        self._full_done = True
        self._phase: Literal["starting", "settled", "cleared"] = "starting"

    def start(self) -> None:
        """Take over; what exists by now (modules, classes: some sixty thousand objects that
        live as long as the app) is set aside, so that no pass walks it again. (A pass at
        this moment finds no garbage, and would take 45 ms.)"""
        gc.freeze()
        young_passes_only()

    def settled(self) -> None:
        """The start-up is over (the engine is open and shown, or failed)."""
        if self._phase == "starting":
            self._phase = "settled"

    def busy(self) -> None:
        """A key was pressed or the engine said something."""
        self._last_busy = self._clock()
        self._full_done = False

    def check(self) -> None:
        """Collect the older generations if it is quiet, or if they have waited too long;
        after a full pass in a quiet moment, give the heap's free pages back (`heap.trim`)."""
        quiet = self._clock() - self._last_busy
        _, young_passes, middle_passes = gc.get_count()
        calm = self._phase != "starting"
        if self._phase == "settled" and quiet >= QUIET_SECONDS:
            gc.collect()  # what the start-up left behind
            self._phase = "cleared"
            self._full_done = True
        elif calm and quiet >= FULL_QUIET_SECONDS and not self._full_done:
            gc.collect()
            heap.trim()  # what was freed, and the heap's other free pages, to the system
            self._full_done = True
        elif middle_passes >= MOST_MIDDLE_PASSES:
            gc.collect()
            self._full_done = True
        elif (
            calm and quiet >= QUIET_SECONDS and young_passes
        ) or young_passes >= MOST_YOUNG_PASSES:
            gc.collect(1)
