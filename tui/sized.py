"""Widgets whose size the layout sets, and only the layout."""

from __future__ import annotations

from textual.geometry import Size
from textual.reactive import Reactive
from textual.widget import Widget


class SizedByLayout(Widget):
    """A widget whose virtual size is set by the layout that works it out, which then paints
    what moved: not a change that asks for another layout and a frame of its own, painting
    the widget again (as Textual's does: each frame of a streaming answer twice, for the
    answer and for every container it grows in). Not for a scroll view, which sets its own
    virtual size and needs the layout that follows.

    A widget with a base class of Textual's names that one first (`class
    SideThread(VerticalScroll, SizedByLayout)`): Textual takes default CSS from the first
    base alone, and this one has none."""

    virtual_size = Reactive(Size(0, 0), repaint=False)
