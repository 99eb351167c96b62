"""The panes beside the conversation: the list, the side chats and the trace. Which are open
is the screen's classes (`-side-open`, `-trace-open`, `-trace-full`, `-list-toggled`,
`-narrow`); `themes/app.tcss` lays them out."""

from __future__ import annotations

from textual import on
from textual.events import Resize

from tui.pacing import PacedScreen
from tui.widgets.conversation_view import ConversationView
from tui.widgets.side_panel import SidePanel
from tui.widgets.trace_pane import TracePane

NARROW_COLUMNS = 100


class PanedScreen(PacedScreen):
    """A screen with a conversation in the middle and panes that open and close beside it;
    the focus goes where a pane opened, and back to the message box when it closes."""

    def on_resize(self, event: Resize) -> None:
        self.set_class(event.size.width < NARROW_COLUMNS, "-narrow")

    @property
    def view(self) -> ConversationView:
        return self.query_one(ConversationView)

    def _side_shown(self, shown: bool) -> None:
        """Show or hide the side panel; on a narrow terminal it takes the place of the rest."""
        self.query_one(SidePanel).display = shown
        self.set_class(shown, "-side-open")
        if not shown:
            self.set_focus(self.view.composer)

    @on(SidePanel.Leave)
    def _side_leave(self) -> None:
        if self.has_class("-narrow"):
            self._side_shown(False)
        else:
            self.set_focus(self.view.composer)

    def action_toggle_trace(self) -> None:
        trace = self.query_one(TracePane)
        trace.display = not trace.display
        self.remove_class("-trace-full")
        self.set_class(trace.display, "-trace-open")
        if trace.display:
            trace.opened()
            self.set_focus(trace.query_one("DataTable"))
        else:
            trace.closed()
            self.set_focus(self.view.composer)

    def action_trace_full(self) -> None:
        trace = self.query_one(TracePane)
        full = not self.has_class("-trace-full")
        self.set_class(full, "-trace-full")
        if not trace.display:
            trace.display = True
            trace.opened()
        self.add_class("-trace-open")
        self.set_focus(trace.query_one("DataTable"))

    def action_toggle_side(self) -> None:
        panel = self.query_one(SidePanel)
        if panel.display and panel.has_focus_within:
            self._side_shown(False)
            return
        self._side_shown(True)
        panel.focus_input()

    def action_toggle_list(self) -> None:
        self.toggle_class("-list-toggled")

    def action_focus_composer(self) -> None:
        self.set_focus(self.view.composer)
