"""A screen that spends at most a share of the time painting, so that keys and the engine's
events are taken in between frames however fast an answer streams."""

from __future__ import annotations

import time

from textual.screen import UPDATE_PERIOD, Screen
from textual.timer import Timer

FRAME_SHARE = 1 / 3
"""The most of the time frames take while the screen changes without pause: after a frame
that took 20 ms the next one waits until 60 ms after its start. A frame of a few ms (a key
typed while nothing streams) paints at the usual 60 a second."""


class PacedScreen(Screen[None]):
    """Paints as Textual's screen does, except that a frame asked for too soon after a long
    one waits for the update timer's next tick past the budget."""

    def __init__(self) -> None:
        super().__init__()
        self._paced_timer: Timer | None = None
        self._next_frame_at = 0.0

    @property
    def _update_timer(self) -> Timer:
        # The screen pauses and resumes this timer as frames are needed; its ticks are paced.
        if self._paced_timer is None:
            self._paced_timer = self.set_interval(
                UPDATE_PERIOD, self._paced_update, name="screen_update", pause=True
            )
        return self._paced_timer

    def _paced_update(self) -> None:
        started = time.perf_counter()
        if started < self._next_frame_at:
            return  # the timer stays on and ticks again one period later
        self._on_timer_update()
        self._next_frame_at = started + (time.perf_counter() - started) / FRAME_SHARE
