"""Textual's private parts that codex-deck uses (listed in `tui/private.py`) are still there
and still what codex-deck takes them for: a release that changes one fails here, by name."""

from __future__ import annotations

import gc
import importlib
import inspect
import pkgutil
import re
from collections.abc import Mapping, Sequence

import anyio
import pytest
from rich.segment import Segment
from textual import messages
from textual._compositor import Compositor
from textual._styles_cache import StylesCache
from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.css import parse as textual_parse
from textual.css import stylesheet as textual_stylesheet
from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet
from textual.dom import NoScreen
from textual.driver import Driver
from textual.geometry import Region, Size
from textual.screen import Screen
from textual.strip import Strip
from textual.timer import Timer
from textual.widgets import Static, TextArea
from textual_serve.server import Server

import tui
from tests.tui.conftest import Deck
from tui.entries import AgentEntry
from tui.private import (
    TEXTUAL_CROP_EXTEND,
    TEXTUAL_DIVIDE,
    TEXTUAL_GET_RENDERS,
    TEXTUAL_PARSE_RULES,
    ParsedKey,
    crop_renders,
    driver,
    drop_screen,
    forget_layouts,
    forget_styles,
    keep_parsed_css,
    mend_strips,
    paint_asked_now,
    repaint_pending,
)
from tui.widgets.message import AgentMessage

pytestmark = pytest.mark.anyio


async def test_the_driver_and_the_screen_stack_are_what_they_were() -> None:
    app: App[None] = App()
    async with app.run_test() as pilot:
        assert isinstance(driver(app), Driver)
        first, second = Screen[None](), Screen[None]()
        await app.push_screen(first)
        await app.push_screen(second)
        drop_screen(app, first)
        await first.remove()
        assert app.screen_stack[-1] is second
        assert first not in app.screen_stack
        await pilot.pause()


async def test_a_widget_changed_tells_its_screen_only_once_idle() -> None:
    """The premise of `repaint_pending`: a widget changed asks to be drawn again and tells
    its screen when it is idle; the screen's next frame paints the widgets it was told of."""
    app: App[None] = App()
    async with app.run_test() as pilot:
        screen = app.screen
        static = Static("before")
        await screen.mount(static)
        await pilot.pause()
        static.update("after")
        assert static._repaint_required
        assert static in screen._compositor.visible_widgets
        assert static not in screen._dirty_widgets
        repaint_pending(screen)
        assert static in screen._dirty_widgets
        await pilot.pause()
        assert not static._repaint_required


async def test_a_screen_paints_through_its_update_timer() -> None:
    """The paced screen replaces `_update_timer` (a property Textual's screen builds its
    painting timer in) and paints by calling `_on_timer_update`."""
    attribute = inspect.getattr_static(Screen, "_update_timer")
    assert isinstance(attribute, property)
    assert inspect.signature(Screen._on_timer_update).parameters.keys() == {"self"}
    app: App[None] = App()
    async with app.run_test():
        assert isinstance(app.screen._update_timer, Timer)


async def test_a_layout_moves_a_scroll_bar_after_the_regions_to_paint_are_chosen() -> None:
    """The premise of `paint_asked_now`: a layout that makes a container's content
    longer asks its scroll bar to be drawn again as it sets the sizes, before the screen's
    `_compositor_refresh` paints; added to the compositor's update then, it is painted."""
    assert inspect.signature(Screen._compositor_refresh).parameters.keys() == {"self"}
    app: App[None] = App()
    async with app.run_test(size=(40, 10)) as pilot:
        screen = app.screen
        box = Vertical(Static("\n".join(map(str, range(30)))))
        box.styles.overflow_y = "scroll"
        await screen.mount(box)
        await pilot.pause()
        refreshes: list[bool] = []
        refresh = screen._compositor_refresh

        def noted() -> None:
            refreshes.append(box.vertical_scrollbar._repaint_required)
            paint_asked_now(screen, {})
            refreshes.append(box.vertical_scrollbar._repaint_required)
            refresh()

        screen._compositor_refresh = noted  # type: ignore[method-assign]
        await box.mount(Static("\n".join(map(str, range(30)))))
        await pilot.pause()
        assert refreshes[:2] == [True, False], refreshes


async def test_a_layout_leaves_what_it_resized_marked_to_be_painted_whole() -> None:
    """The premise of `paint_asked_now` for what grows: the layout that makes a widget
    taller marks all of it to be painted (which its frame does, the widget having moved);
    added to the compositor's update then, the mark is gone."""
    app: App[None] = App()
    async with app.run_test(size=(40, 10)) as pilot:
        screen = app.screen
        text = Static("one")
        await screen.mount(text)
        await pilot.pause()
        marks: list[bool] = []
        refresh = screen._compositor_refresh

        def noted() -> None:
            marks.append(bool(text._repaint_regions))
            paint_asked_now(screen, {})
            marks.append(bool(text._repaint_regions) or text._repaint_required)
            refresh()

        screen._compositor_refresh = noted  # type: ignore[method-assign]
        text.update("one\ntwo\nthree")
        await pilot.pause()
        assert marks[:2] == [True, False], marks


class CountedRows(Vertical):
    """A container that counts the rows of it drawn."""

    rows = 0

    def render_lines(self, crop: Region) -> list[Strip]:
        CountedRows.rows += crop.height
        return super().render_lines(crop)


async def test_an_update_of_a_line_draws_the_widgets_under_it_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The premise of `crop_renders`: Textual draws each widget under an update whole
    (`Compositor._get_renders`); with it, the part under the update."""
    assert list(inspect.signature(TEXTUAL_GET_RENDERS).parameters) == ["self", "crop"]
    monkeypatch.setattr(Compositor, "_get_renders", TEXTUAL_GET_RENDERS)
    app: App[None] = App()
    async with app.run_test(size=(40, 20)) as pilot:
        clock = Static("0")
        await app.screen.mount(CountedRows(Static("\n".join(map(str, range(12)))), clock))
        await pilot.pause()
        drawn: list[int] = []
        for renders in (TEXTUAL_GET_RENDERS, None):
            if renders is None:
                crop_renders()
            CountedRows.rows = 0
            clock.update(str(len(drawn) + 1))
            await pilot.pause()
            drawn.append(CountedRows.rows)
        assert drawn == [20, 1], drawn
        assert app.screen._compositor.render_strips()[12].text.startswith("2")


class Over(App[None]):
    """Text under a box on a layer above it, which covers part of some of its rows."""

    CSS = """
    Screen { layers: below above; }
    #under { layer: below; }
    #box { layer: above; offset: 12 3; width: 14; height: 4; border: round $accent; }
    """

    def compose(self) -> ComposeResult:
        yield Static("\n".join(f"row {n} " + "text " * 8 for n in range(12)), id="under")
        yield Static("on top", id="box")


async def test_the_rows_under_an_update_are_drawn_as_a_whole_screen_draws_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`crop_renders` draws the rows under an update as Textual does when it draws the whole
    screen, whatever columns the update spans (here a box on a layer above the text cuts
    those rows)."""
    monkeypatch.setattr(Compositor, "_get_renders", TEXTUAL_GET_RENDERS)
    app = Over()
    async with app.run_test(size=(40, 12)) as pilot:
        await pilot.pause()
        compositor = app.screen._compositor
        update = Region(7, 2, 11, 4)  # from inside the text to inside the box
        rows = set(update.line_range)
        whole = compositor._render_chops(compositor.size.region, lambda y: True)
        crop_renders()
        cropped = compositor._render_chops(update, rows.__contains__)

        def shown(chops: Sequence[Mapping[int, Strip]]) -> list[list[tuple[int, str]]]:
            return [
                [(cut, strip.text) for cut, strip in sorted(chops[y].items())] for y in sorted(rows)
            ]

        assert shown(cropped) == shown(whole)
        assert any("on top" in text for row in shown(cropped) for _, text in row)


class Answered(App[None]):
    def compose(self) -> ComposeResult:
        yield AgentMessage(AgentEntry(key="a", text="The answer, **in bold**"))
        yield Static("below it")


async def test_an_update_before_the_layout_that_drops_a_removed_answer_leaves_it_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Textual draws the widgets of the screen's last layout: one removed since is drawn
    with no screen, and an answer asks its screen for its selection as it is drawn. With
    `crop_renders` it is left out until the layout drops it."""
    monkeypatch.setattr(Compositor, "_get_renders", TEXTUAL_GET_RENDERS)
    app = Answered()
    async with app.run_test(size=(40, 8)) as pilot:
        await pilot.pause()
        answer = app.query_one(AgentMessage)
        compositor = app.screen._compositor
        await answer.remove()
        assert answer in compositor.visible_widgets, "still in the last layout"
        with pytest.raises(NoScreen):
            compositor._render_chops(compositor.size.region, lambda y: True)
        crop_renders()
        chops = compositor._render_chops(compositor.size.region, lambda y: True)
        text = "".join(strip.text for row in chops for strip in row.values())
        assert "answer" not in text
        assert "below it" in text
        await pilot.pause()
        assert answer not in compositor.visible_widgets


def test_a_text_area_takes_keys_in_on_key() -> None:
    handler = inspect.getattr_static(TextArea, "_on_key")
    assert inspect.iscoroutinefunction(handler)
    assert list(inspect.signature(handler).parameters) == ["self", "event"]


def test_textual_serve_makes_its_web_app_in_make_app() -> None:
    maker = inspect.getattr_static(Server, "_make_app")
    assert inspect.iscoroutinefunction(maker)
    assert list(inspect.signature(maker).parameters) == ["self"]


YIELDS = 20
"""Times the probe's exit handler gives the loop to others before it ends."""


async def test_an_exit_from_outside_reaches_the_app_before_textual_ends_it() -> None:
    """codex-deck closes its engine in `on_exit_app` when Textual is told to exit from
    outside (textual-serve's quit, the web driver's SIGINT): Textual dispatches ExitApp to
    that handler, and waits for it, before its own `_on_exit_app` ends the app."""
    order: list[str] = []

    class Probe(App[None]):
        async def on_exit_app(self) -> None:
            order.append("closing")
            for _ in range(YIELDS):  # suspended: Textual's own exit could run meanwhile
                await anyio.lowlevel.checkpoint()
            order.append("closed")

        def on_mount(self) -> None:
            self.post_message(messages.ExitApp())

        def on_unmount(self) -> None:
            order.append("unmounted")

    await Probe().run_async(headless=True)
    assert order == ["closing", "closed", "unmounted"]


async def test_a_container_keeps_its_layouts_until_they_are_forgotten() -> None:
    """Textual keeps a container's last layouts (each holding its children) to lay it out
    again unchanged; `forget_layouts` lets them go."""

    class Holder(App[None]):
        def compose(self) -> ComposeResult:
            with Vertical():
                yield Static("held")

    app = Holder()
    async with app.run_test():
        box = app.query_one(Vertical)
        laid = box.arrange(Size(40, 10))
        assert box.arrange(Size(40, 10)) is laid
        forget_layouts(box)
        assert box.arrange(Size(40, 10)) is not laid


async def test_style_caches_are_kept_by_an_lru_cache_until_forgotten() -> None:
    """Textual's `StylesCache.get_inner_outer` is an `lru_cache` on a method: every widget's
    style cache that drew a line is in its keys, kept after the widget is gone (#6665);
    `forget_styles` empties it. When Textual makes it a function of the colours alone, the
    first assertion fails and `forget_styles` can go."""
    method = inspect.getattr_static(StylesCache, "get_inner_outer")
    assert not isinstance(method, (classmethod, staticmethod))
    assert hasattr(method, "cache_clear")

    class Holder(App[None]):
        def compose(self) -> ComposeResult:
            yield Static("drawn\n" * 30)

    app = Holder()
    async with app.run_test() as pilot:
        await pilot.pause()
        assert StylesCache.get_inner_outer.cache_info().currsize > 0
        forget_styles()
        assert StylesCache.get_inner_outer.cache_info().currsize == 0


def test_a_text_area_takes_pastes_in_on_paste() -> None:
    handler = inspect.getattr_static(TextArea, "_on_paste")
    assert inspect.iscoroutinefunction(handler)
    assert list(inspect.signature(handler).parameters) == ["self", "event"]


SET_PRIVATE = re.compile(r"self\.(_[a-z][a-z0-9_]*)\s*(?::[^=\n]*)?=(?!=)")


def test_no_attribute_codex_deck_sets_is_one_of_textuals_own() -> None:
    """An attribute of codex-deck's own with the name of one of Textual's replaces Textual's
    (the app once named a flag `_closing`, which is the message pump's: set, the app posted
    nothing more, not even its own exit)."""
    clashes = []
    for info in pkgutil.walk_packages(tui.__path__, "tui."):
        if info.name.endswith("__main__"):
            continue  # the command itself: importing it runs it
        module = importlib.import_module(info.name)
        for cls in vars(module).values():
            if not (inspect.isclass(cls) and cls.__module__ == module.__name__):
                continue
            base = next((c for c in cls.__mro__ if c.__module__.startswith("textual")), None)
            if base is None:
                continue
            try:
                theirs = set(vars(base()))
            except TypeError:
                theirs = set()
            ours = set(SET_PRIVATE.findall(inspect.getsource(cls)))
            clashes += [f"{cls.__name__}.{name} ({base.__name__})" for name in ours & theirs]
    assert clashes == []


def holds_itself(strip: Strip) -> bool:
    """Whether `strip` is reached again through what it refers to (a reference cycle)."""
    seen: set[int] = set()
    todo = [(item, 0) for item in gc.get_referents(strip)]
    while todo:
        item, depth = todo.pop()
        if item is strip:
            return True
        if id(item) not in seen and depth < 4:
            seen.add(id(item))
            todo += [(referent, depth + 1) for referent in gc.get_referents(item)]
    return False


def test_textuals_strips_hold_themselves_when_divided_or_cropped_to_their_width() -> None:
    """The premise of `mend_strips`: when Textual stops caching a strip in itself, this fails
    and the mend can go."""
    line = Strip([Segment("twelve cells")])
    assert TEXTUAL_DIVIDE(line, [12]) == [line]
    assert holds_itself(line)
    other = Strip([Segment("twelve cells")])
    assert TEXTUAL_CROP_EXTEND(other, 0, 12, None) is other
    assert holds_itself(other)


def test_mended_strips_answer_as_textuals_without_holding_themselves(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(Strip, "divide", TEXTUAL_DIVIDE)
    monkeypatch.setattr(Strip, "crop_extend", TEXTUAL_CROP_EXTEND)
    mend_strips()
    line = Strip([Segment("twelve "), Segment("cells")])
    assert line.divide([12]) == [line]
    assert line.divide([12, 20]) == [line]
    assert line.crop_extend(0, 12, None) is line
    assert not holds_itself(line)
    for cuts in ([4, 12], [3, 7, 12], [5]):
        mended = [strip.text for strip in line.divide(cuts)]
        assert mended == [strip.text for strip in TEXTUAL_DIVIDE(Strip(list(line)), cuts)]
    for start, end in ((2, 12), (0, 16), (3, 5), (-1, 12)):
        mended_text = line.crop_extend(start, end, None).text
        assert mended_text == TEXTUAL_CROP_EXTEND(Strip(list(line)), start, end, None).text


async def test_the_app_mends_strips_when_it_starts(
    deck: Deck, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Strip, "divide", TEXTUAL_DIVIDE)
    monkeypatch.setattr(Strip, "crop_extend", TEXTUAL_CROP_EXTEND)
    async with deck():
        painted = Strip([Segment("painted")])
        painted.divide([7])
        painted.crop_extend(0, 7, None)
        assert not holds_itself(painted)


ACCENTED = "Static { color: $accent; }"


def parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The CSS Textual's parser is given from now on (each text as it is parsed)."""
    parsed: list[str] = []
    parse = textual_parse.parse

    def counted(scope: str, css: str, *args: object, **kwargs: object) -> object:
        parsed.append(css)
        return parse(scope, css, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(textual_stylesheet, "parse", counted)
    return parsed


def accented(accent: str) -> Stylesheet:
    """A stylesheet of one source, parsed with `accent` as its `$accent`."""
    sheet = Stylesheet(variables={"accent": accent})
    sheet.add_source(ACCENTED, ("app.tcss", ""))
    sheet.parse()
    return sheet


def test_textual_parses_css_again_in_a_stylesheet_made_anew_or_given_its_variables(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The premise of `keep_parsed_css`: what the app's stylesheet goes through as it starts
    (made anew and given the theme's variables) has the same CSS parsed again each time."""
    parsed = parses(monkeypatch)
    sheet = accented("red")
    sheet.parse()
    assert parsed == [ACCENTED], "a stylesheet keeps what it parsed"
    sheet.reparse()
    sheet.set_variables({"accent": "red"})
    sheet.parse()
    assert parsed == [ACCENTED] * 3


class Kept(dict[ParsedKey, list[RuleSet]]):
    def add(self, key: ParsedKey, rules: list[RuleSet]) -> None:
        self[key] = rules


def test_kept_css_is_taken_by_every_stylesheet_that_parses_it_with_the_same_variables(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(Stylesheet, "_parse_rules", TEXTUAL_PARSE_RULES)
    parsed = parses(monkeypatch)
    keep_parsed_css(Kept())
    first = accented("red")
    first.reparse()
    first.set_variables({"accent": "red"})
    first.parse()
    second = accented("red")
    assert parsed == [ACCENTED]
    assert second.rules == first.rules
    other = accented("blue")
    assert parsed == [ACCENTED] * 2, "other variables: parsed with them"
    assert other.rules[0].styles.color != first.rules[0].styles.color
