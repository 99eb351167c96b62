"""What a conversation's commands and keys open over it or beside it: the model picker (/model
alone), the diff (/diff, or a review's finding), the earlier messages to go back to (Esc Esc),
and a sub-agent's transcript (Enter on its line)."""

from __future__ import annotations

from textual import on, work

from engine.errors import CodexDeckError
from tui.reported import reported
from tui.screens.diff import DiffScreen
from tui.screens.models import ModelPicker
from tui.screens.panes import PanedScreen
from tui.screens.rewind import RewindPicker
from tui.widgets.conversation_view import ConversationView
from tui.widgets.notes import AgentsLine


class PickingScreen(PanedScreen):
    @work(group="models")
    @reported("The models could not be listed")
    async def pick_model(self, conversation_id: str, line: str, hidden: bool) -> None:
        """The model picker (with `hidden`, codex's hidden models too); what is chosen goes to
        the engine as `/model NAME EFFORT`."""
        view = self.view
        assert view.backend is not None
        try:
            offered = await view.backend.models(hidden, conversation_id)
        except CodexDeckError as error:
            view.note(f"codex could not list its models: {error}")
            view.composer.give_back(line)
            return
        current = view.backend.session_info(conversation_id).model
        chosen = await self.app.push_screen_wait(ModelPicker(offered, current))
        if chosen is not None:
            model, effort = chosen
            view.run(conversation_id, f"/model {model} {effort or ''}".strip())

    @on(ConversationView.RewindAsked)
    def _rewind_asked(self, event: ConversationView.RewindAsked) -> None:
        def back(chosen: tuple[str, str] | None) -> None:
            self.view.rewind_to(event.conversation_id, chosen)

        self.app.push_screen(RewindPicker(event.messages), back)

    @on(AgentsLine.Open)
    @work(group="agents")
    @reported("The sub-agent's transcript could not be opened")
    async def _open_agent(self, event: AgentsLine.Open) -> None:
        view = self.view
        if view.backend is None or view.current is None:
            return
        opened = await view.backend.execute(view.current, f"/open {event.thread_id}")
        if opened.ok:
            view.post_message(ConversationView.Ran(view, "", True, opened.conversation_id))
        else:
            view.note(f"Not opened: {opened.message}")

    @on(ConversationView.DiffReady)
    async def _diff_ready(self, event: ConversationView.DiffReady) -> None:
        await self.app.push_screen(DiffScreen(event.view, event.at))
