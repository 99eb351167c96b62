"""The parts of Textual's private API that codex-deck uses, in one place each.

`tests/tui/test_textual_private.py` fails when a Textual release changes any of them:

- `App._driver`: the terminal driver, to write an OSC 9 notification as Textual writes its
  own bell and OSC 52 (`driver`, used by `tui/notify.py`).
- `App._screen_stack`: a screen is taken from under the top one when the main screen is
  replaced after signing in (`drop_screen`, used by `tui/app.py`).
- `Screen._update_timer` and `Screen._on_timer_update`: the paced screen owns the timer
  that paints, and paints itself (`tui/pacing.py`).
- `Screen._compositor.visible_widgets`, `Screen._dirty_widgets` and
  `Widget._repaint_required`: a widget that asked to be drawn again tells its screen only once
  it is idle; the frame that ends a change adds those that have not yet, so that it paints
  them with the rest of the change without painting the whole screen again
  (`repaint_pending`, used by `tui/pacing.py`).
- `Screen._compositor_refresh`, `Screen._compositor.update_widgets`,
  `Widget._repaint_required` and `Widget._repaint_regions`: a layout moves scroll bars'
  thumbs once the regions to paint are chosen, and marks each widget it resizes to be painted
  whole; they asked for a frame of their own some 25 ms later (each frame of a streaming
  answer), which painted again what the layout's frame had just painted, and, besides them,
  every widget under them. The paced screen adds them to the frame being painted
  (`paint_asked_now`, used by `tui/pacing.py`).
- `ScrollBar.position`, `window_size` and `window_virtual_size`: a scroll bar's thumb could
  stay drawn where it was after it moved, until something else painted it (a snapshot of the
  inbox over a transcript showed either, about one run in two). The layout of an anchored
  container sets its scroll bar's position underneath the reactive (`_reactive_position`, in
  `Compositor._arrange_root`), which asks for nothing: the likely way. `paint_asked_now`
  paints a scroll bar whose thumb moved since the last frame.
- `Compositor._get_renders`: for an update of a few lines (a streaming answer's last line),
  Textual draws every widget under it whole (the screen, each container, the transcript: a
  screenful each) and keeps the lines of the update. `crop_renders` has it draw only the
  rows under the update (`tui/app.py`, when the app starts), and leave out a widget removed
  since the last layout, which Textual draws with no screen.
- `TextArea._on_key`: the message boxes take Enter, Tab and Esc before the text area does
  (`tui/widgets/composer.py`, `tui/screens/starting.py`).
- `TextArea._on_paste`: the message box takes a paste itself (once, large ones as a
  placeholder, an image path as an attachment: `tui/widgets/composer.py`).
- `Widget._clear_arrangement_cache`: a container keeps its last few layouts (each holding its
  children) until it is laid out again, which a transcript out of view is not; it lets them go
  when it puts its widgets away (`forget_layouts`, used by `tui/widgets/transcript.py`).
- `StylesCache.get_inner_outer`: an `lru_cache` on a method, so it holds the last 1,024
  widgets' style caches (each with the lines it drew and the numbers of those it did not)
  long after the widgets are gone (Textual's #6665); the transcript empties it when it lets
  go of widgets (`forget_styles`).
- `Strip.divide` and `Strip.crop_extend`: each caches its result on the strip, and when the
  result is the strip itself (a line divided or cropped to the width it already has: the
  compositor's case for every line it paints) the strip holds itself, a reference cycle. Every
  line painted then outlives its last use until a pass of the cyclic collector, which walks it
  (some 350,000 objects after 20 long answers: a 550 ms pause). `mend_strips` answers those
  cases with the strip without caching it (`tui/app.py`, when the app starts).

- `Stylesheet._parse_rules` and `Stylesheet._variables`: a stylesheet parses each CSS
  source once, and forgets it when it is made anew or its variables are set; as the app starts
  it is both (the theme), so the app's CSS and each widget's default CSS were parsed two to
  four times, some 30 ms of each start. `keep_parsed_css` has every stylesheet take what was
  parsed before, with the same variables, from one place (kept between runs by
  `tui/parsed_css.py`) (`tui/cli.py`, before the app runs).

And none of Textual's own attributes is set by codex-deck under the same name (a test walks
every class of `tui` for one).
- textual-serve's `Server._make_app`: the web application the secret is checked in front of
  (`tui/serve.py`).
"""

from __future__ import annotations

from collections.abc import Iterable, MutableMapping, Sequence
from typing import Any, Protocol

from rich.style import Style
from textual._compositor import Compositor
from textual._styles_cache import StylesCache
from textual.app import App
from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet
from textual.css.types import CSSLocation
from textual.driver import Driver
from textual.geometry import Region
from textual.screen import Screen
from textual.scrollbar import ScrollBar
from textual.strip import Strip
from textual.widget import Widget


def driver(app: App[Any]) -> Driver | None:
    """The app's terminal driver (none before it runs or once it closed)."""
    return app._driver


def drop_screen(app: App[Any], screen: Screen[Any]) -> None:
    """Take `screen` off the app's screen stack wherever it is in it (the caller then
    removes it)."""
    app._screen_stack.remove(screen)


Thumb = tuple[float, int, int]
"""A scroll bar's position, window size and virtual size: where its thumb is drawn."""


def repaint_pending(screen: Screen[Any]) -> None:
    """Have the screen's next frame paint the widgets in view that asked to be drawn again
    and have not yet told the screen."""
    for widget in screen._compositor.visible_widgets:
        if widget._repaint_required:
            screen._dirty_widgets.add(widget)


def paint_asked_now(screen: Screen[Any], thumbs: MutableMapping[ScrollBar, Thumb]) -> None:
    """Add the widgets in view that asked to be painted, and have not told the screen yet,
    to the update it is about to paint, and take back their call for a frame of their own:
    a layout moves scroll bars' thumbs once the regions to paint are chosen, and marks every
    widget it resizes to be painted whole, which the layout's frame has just done. A scroll
    bar whose thumb moved since the last frame is painted too (it may not have asked:
    `thumbs` holds where each thumb was)."""
    compositor = screen._compositor
    asked: set[Widget] = set()
    for widget in compositor.visible_widgets:
        if isinstance(widget, ScrollBar):
            thumb = (widget.position, widget.window_size, widget.window_virtual_size)
            if thumbs.get(widget) != thumb:
                thumbs[widget] = thumb
                widget.refresh()
        if widget._repaint_required or widget._repaint_regions:
            asked.add(widget)
    if asked:
        compositor.update_widgets(asked)
        for widget in asked:
            widget._repaint_required = False


def forget_layouts(widget: Widget) -> None:
    """Let go of the layouts `widget` keeps of its children (its next layout is made anew)."""
    widget._clear_arrangement_cache()


def forget_styles() -> None:
    """Let go of the style caches of widgets that are gone, which Textual keeps (the next
    lines drawn work their background out again)."""
    StylesCache.get_inner_outer.cache_clear()


TEXTUAL_DIVIDE = Strip.divide
TEXTUAL_CROP_EXTEND = Strip.crop_extend


def _divide(self: Strip, cuts: Iterable[int]) -> Sequence[Strip]:
    cuts = list(cuts)
    if [cut for cut in cuts if cut <= self.cell_length] == [self.cell_length]:
        return [self]
    return TEXTUAL_DIVIDE(self, cuts)


def _crop_extend(self: Strip, start: int, end: int, style: Style | None) -> Strip:
    if start <= 0 and end == self.cell_length:
        return self
    return TEXTUAL_CROP_EXTEND(self, start, end, style)


TEXTUAL_GET_RENDERS = Compositor._get_renders


def _get_renders(
    self: Compositor, crop: Region | None = None
) -> Iterable[tuple[Region, Region, list[Strip]]]:
    return _cropped_renders(self, crop or self.size.region)


def _cropped_renders(
    compositor: Compositor, crop: Region
) -> Iterable[tuple[Region, Region, list[Strip]]]:
    """Each widget under `crop`, its region, its clip cut to the rows of `crop`, and the
    lines of it under both (what Textual's yields, for the rows of each widget the update
    shows). Whole rows: the compositor cuts each row where widgets start and end.

    A widget removed since the last layout is left out (Textual draws it: one with no
    screen to draw with, and an answer asking it for its selection raised and ended the app);
    the layout that drops it is on its way."""
    rows = crop.y, crop.bottom
    for widget, (region, clip) in compositor.visible_widgets.items():
        if not crop.overlaps(clip) or not widget.is_attached:
            continue
        top, bottom = max(clip.y, rows[0]), min(clip.bottom, rows[1])
        clip = Region(clip.x, top, clip.width, max(bottom - top, 0))
        x, y, width, height = region.intersection(clip)
        if width and height:
            yield (
                region,
                clip,
                widget.render_lines(Region(x - region.x, y - region.y, width, height)),
            )


def crop_renders() -> None:
    """Have an update draw only the part of each widget under it."""
    Compositor._get_renders = _get_renders  # type: ignore[method-assign]


def mend_strips() -> None:
    """Make a strip divided or cropped to the width it has answer with itself without caching
    itself (what Textual's methods return then, without the reference cycle)."""
    Strip.divide = _divide  # type: ignore[method-assign]
    Strip.crop_extend = _crop_extend  # type: ignore[method-assign]


ParsedKey = tuple[str, CSSLocation, bool, int, str, str]
"""A CSS source as Textual parses it: its text, where it was read from, whether it is a
widget's default CSS, its tie breaker and scope, and the variables it was parsed with (one
string, "name: value" a line)."""


class ParsedRules(Protocol):
    """Where `keep_parsed_css` takes CSS parsed before from, and puts what is parsed now."""

    def get(self, key: ParsedKey) -> list[RuleSet] | None: ...

    def add(self, key: ParsedKey, rules: list[RuleSet]) -> None: ...


TEXTUAL_PARSE_RULES = Stylesheet._parse_rules


def keep_parsed_css(parsed: ParsedRules) -> None:
    """Have every stylesheet take the rules of CSS parsed before with the same variables from
    `parsed`, and put there what it parses."""
    named: list[tuple[dict[str, str], str]] = []
    """The variables last parsed with, and they as one string. Textual gives a stylesheet new
    variables as a new dict (`set_variables`), and a stylesheet made anew the same one: made
    once for each, the key is hashed in a lookup (its string's hash is kept), not made again
    for every source of every parse (some 170 variables: 6.5 µs a source)."""

    def variables_of(sheet: Stylesheet) -> str:
        variables = sheet._variables
        if not named or named[0][0] is not variables:
            named[:] = [(variables, "\n".join(f"{k}: {v}" for k, v in variables.items()))]
        return named[0][1]

    def parse_rules(
        self: Stylesheet,
        css: str,
        read_from: CSSLocation,
        is_default_rules: bool = False,
        tie_breaker: int = 0,
        scope: str = "",
    ) -> list[RuleSet]:
        key = (css, read_from, is_default_rules, tie_breaker, scope, variables_of(self))
        rules = parsed.get(key)
        if rules is None:
            rules = TEXTUAL_PARSE_RULES(self, css, read_from, is_default_rules, tie_breaker, scope)
            parsed.add(key, rules)
        return rules

    Stylesheet._parse_rules = parse_rules  # type: ignore[method-assign]
