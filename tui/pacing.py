"""A screen that spends at most a share of the time painting, so that keys and the engine's
events are taken in between frames however fast an answer streams; and an app whose keys
typed are painted first, in a frame of their own if they can be."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable, Coroutine
from weakref import WeakKeyDictionary

from textual import events
from textual.app import App
from textual.screen import UPDATE_PERIOD, Screen
from textual.scrollbar import ScrollBar
from textual.timer import Timer
from textual.widget import Widget
from textual.worker import WorkType

from tui.private import Thumb, paint_asked_now, repaint_pending

FRAME_SHARE = 1 / 3
"""The most of the time frames take while the screen changes without pause: after a frame
that took 20 ms the next one waits until 60 ms after its start. A frame of a few ms (a key
typed while nothing streams) paints at the usual 60 a second."""

KEY_ORDER_SECONDS = 0.25
"""The longest the app waits for a box to take a key before it hands on the next."""
KEY_FIRST_SECONDS = 0.1
"""The longest a frame waits for a key on its way to the focused widget."""
KEEP_SECONDS = 0.5
"""The longest keys typed are kept for a screen that has not focused its field yet."""
CHANGE_SECONDS = 0.25
"""The longest the screen paints nothing while the user's change is made."""


class PacedScreen(Screen[None]):
    """Paints as Textual's screen does, except that a frame asked for too soon after a long
    one waits for the update timer's next tick past the budget, and that a key typed goes
    first (`KeysFirstApp`)."""

    def __init__(self) -> None:
        super().__init__()
        self._paced_timer: Timer | None = None
        self._next_frame_at = 0.0
        self._keys_coming = 0
        self._key_since = 0.0
        self._key_to_paint = False
        self._changing = 0
        self._changing_since = 0.0
        self.painted = 0
        """How many times the screen has painted (a frame, when anything had changed)."""
        self.painted_at = 0.0
        """When the last of them ended (`time.perf_counter()`)."""
        self._thumbs: WeakKeyDictionary[ScrollBar, Thumb] = WeakKeyDictionary()
        """Where each scroll bar's thumb was at the last frame (`paint_asked_now`)."""

    @property
    def keys_first(self) -> bool:
        """A key typed is not painted yet (for KEY_FIRST_SECONDS at most): other changes
        had better wait for the frame that shows it, which they would make longer."""
        waiting = self._keys_coming > 0 or self._key_to_paint
        return waiting and time.perf_counter() - self._key_since < KEY_FIRST_SECONDS

    @contextlib.asynccontextmanager
    async def changing(self) -> AsyncIterator[None]:
        """The user changes what the screen shows in several steps (another conversation
        brought into view): no frame shows it half made (for CHANGE_SECONDS at most), and the
        frame that shows it made is painted at once, past the budget, as a key's is."""
        if not self._changing:
            self._changing_since = time.perf_counter()
        self._changing += 1
        try:
            yield
        finally:
            self._changing -= 1
            if not self._changing:
                self.call_later(self._paint_changed)

    def _paint_changed(self) -> None:
        if not self._changing:
            # Laid out again whole, and what changed painted: a widget's own call for either
            # reaches the screen only once that widget is idle, after this. Not all painted
            # again: that frame took a third longer (a conversation of 2,000 items shown).
            self.refresh(layout=True, repaint=False)
            repaint_pending(self)
            self._paint()

    def key_coming(self) -> None:
        """A key is on its way to the focused widget: the next frame waits until `key_taken`."""
        if not self.keys_first:
            self._keys_coming, self._key_since = 0, time.perf_counter()
        self._keys_coming += 1

    def key_taken(self) -> None:
        """The focused widget has taken a key (call it from the widget's queue, after the
        key). The note goes to this screen's queue; what the key changed follows it there
        when the widget next idles, just after. Once all keys are taken, the screen paints
        as soon as that is in."""
        self.call_later(self._key_shown_next)

    def _key_shown_next(self) -> None:
        self._keys_coming = max(self._keys_coming - 1, 0)
        if not self._keys_coming:
            self._key_to_paint = True
            self.call_later(self._paint_keys)  # behind what the keys changed

    def _paint_keys(self) -> None:
        if self._key_to_paint and not self._keys_coming:
            self._paint()

    @property
    def _update_timer(self) -> Timer:
        # The screen pauses and resumes this timer as frames are needed; its ticks are paced.
        if self._paced_timer is None:
            self._paced_timer = self.set_interval(
                UPDATE_PERIOD, self._paced_update, name="screen_update", pause=True
            )
        return self._paced_timer

    def _paced_update(self) -> None:
        if self._keys_coming and self.keys_first:
            return  # the timer stays on and ticks again one period later
        if self._changing and time.perf_counter() - self._changing_since < CHANGE_SECONDS:
            return
        if time.perf_counter() >= self._next_frame_at:
            self._paint()

    def _compositor_refresh(self) -> None:
        # What this frame's layout moved or resized, and what asked to be painted since the
        # frame began, is painted in it, not in one of its own after it.
        paint_asked_now(self, self._thumbs)
        super()._compositor_refresh()

    def _paint(self) -> None:
        started = time.perf_counter()
        self._on_timer_update()
        self._key_to_paint = False
        self.painted += 1
        self.painted_at = time.perf_counter()
        self._next_frame_at = started + (self.painted_at - started) / FRAME_SHARE


def after_painted(widget: Widget, work: Callable[[], Coroutine[None, None, None]]) -> None:
    """Once the widget's screen has painted its next frame, run `work` in a worker of the
    widget's (after the next refresh, on a screen that is not paced). The worker calls it
    as it starts: a widget removed first leaves no coroutine behind, never awaited."""
    screen = widget.screen
    if not isinstance(screen, PacedScreen):
        widget.call_after_refresh(work)
        return
    painted = screen.painted

    def when_painted() -> None:
        if screen.painted > painted:
            job: WorkType[None] = work
            widget.run_worker(job, group="after-painted")
        else:
            widget.set_timer(UPDATE_PERIOD, when_painted)

    widget.set_timer(UPDATE_PERIOD, when_painted)


class KeysFirstApp(App[None]):
    """An app whose keys go first on a paced screen: the screen paints none of its frames
    between a key's arrival and the focused widget taking it (that frame would not show
    the key), and paints the next one at once, past its budget. On every screen, a key that
    is not text, given to a widget that takes keys in order, is taken before the next; and
    what is typed while a screen arrives is kept for it until it has focused its field."""

    def __init__(self) -> None:
        super().__init__()
        self._typed_meanwhile: list[events.Event] | None = None
        """Keys and pastes kept while a screen takes another's place, or while a screen
        pushed has not focused its field yet."""
        self._kept_since = 0.0

    def keep_typed(self) -> None:
        """Keep what is typed from now until `hand_on_typed`."""
        self._typed_meanwhile = []

    async def hand_on_typed(self) -> None:
        """Hand on, in order, what was kept."""
        while self._typed_meanwhile:
            await self._take(self._typed_meanwhile.pop(0))
        self._typed_meanwhile = None

    async def on_event(self, event: events.Event) -> None:
        typed = isinstance(event, events.Key | events.Paste) and not event.is_forwarded
        if typed and self._typed_meanwhile is not None:
            self._typed_meanwhile.append(event)
            return
        if typed and self._screen_arriving():
            # A screen just pushed (the rename prompt after F2) focuses its field only once
            # it is mounted: what is typed before that would reach no field.
            self._typed_meanwhile = [event]
            self._kept_since = time.monotonic()
            self.screen.call_after_refresh(self._hand_on_kept)
            return
        await self._take(event)

    def _screen_arriving(self) -> bool:
        """The screen shown has something to focus and has not focused it yet."""
        screen = self.screen
        return screen.focused is None and bool(screen.focus_chain)

    async def _hand_on_kept(self) -> None:
        """Hand the keys kept for an arriving screen on, in order, once it has focused its
        field (or after KEEP_SECONDS, if it never does)."""
        waited = time.monotonic() - self._kept_since
        if self._screen_arriving() and waited < KEEP_SECONDS:
            self.screen.call_after_refresh(self._hand_on_kept)
            return
        await self.hand_on_typed()

    async def _take(self, event: events.Event) -> None:
        if not isinstance(event, events.Key) or event.is_forwarded:
            await super().on_event(event)
            return
        screen = self.screen
        paced = screen if isinstance(screen, PacedScreen) else None
        taker = self.focused or screen
        if paced is not None:
            paced.key_coming()
        await super().on_event(event)
        if paced is not None:
            taker.call_later(paced.key_taken)
        # On any screen (a prompt's Enter too): the next key waits for this one to be taken.
        if getattr(taker, "keys_in_order", False) and not event.is_printable:
            await taken(taker)


async def taken(widget: Widget) -> None:
    """Wait until the widget has taken what was sent to it so far (KEY_ORDER_SECONDS at
    most): a key that moves the cursor, deletes or opens a screen then acts before the keys
    typed after it arrive."""
    done = asyncio.Event()
    widget.call_later(done.set)
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(done.wait(), KEY_ORDER_SECONDS)
