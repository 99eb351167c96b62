"""Pilot tests of the app on the real engine: send, stream, steer, queue, stop, reset, switch,
expand a command's output, the trace pane, approvals by key, text that is not accepted."""

from __future__ import annotations

import tempfile
from pathlib import Path

import anyio
import pytest
from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.geometry import Region
from textual.selection import Selection
from textual.widgets import Static

from bench.figures import idle_conversation
from engine.conversations.interactions import Decline
from engine.events import (
    ConversationUpdated,
    EngineEvent,
    ItemCompleted,
    ItemDelta,
    ItemStarted,
    Stamp,
)
from engine.protocol import TEXT_INPUT_CHARS, CommandExecutionItem
from engine.replay import replay_backend
from engine.scripted_model import ScriptedModel
from engine.settings import Settings, UiSettings
from tests.reliability.report import Ledger
from tests.tui.conftest import Deck, go_to_request, transcript, until
from tui.app import CodexDeckApp
from tui.controls import CONTROL
from tui.entries import KEPT_OUTPUT_CHARS
from tui.markdown import MarkdownChunk
from tui.screens.help import HelpScreen
from tui.widgets.approval import ApprovalCard
from tui.widgets.command import CommandCell
from tui.widgets.composer import CommandCompletion, Composer
from tui.widgets.conversation_list import ConversationList
from tui.widgets.message import AgentMessage, UserMessage
from tui.widgets.notes import NoticeLine, TurnMarker
from tui.widgets.trace_pane import TracePane

pytestmark = pytest.mark.anyio


def turn_markers(app: CodexDeckApp) -> list[TurnMarker]:
    return list(transcript(app).query(TurnMarker))


def notices(app: CodexDeckApp) -> list[str]:
    return [notice.text for notice in transcript(app).query(NoticeLine)]


async def type_and_send(app: CodexDeckApp, pilot: object, text: str, key: str = "enter") -> None:
    composer = app.main.query_one(Composer)
    composer.text = text
    await pilot.press(key)  # type: ignore[attr-defined]


async def test_send_streams_markdown_and_clears_the_composer(deck: Deck) -> None:
    async with deck() as (app, pilot):
        await pilot.press(*"show markdown")
        await pilot.press("enter")
        await until(pilot, lambda: turn_markers(app), "the turn ends")
        await until(pilot, lambda: transcript(app).settled, "the answer is drawn")
        [answer] = transcript(app).query(AgentMessage)
        assert answer.text.startswith("## Streaming Markdown")
        assert "That is all of it." in answer.text
        assert [m.text for m in transcript(app).query(UserMessage)] == ["show markdown"]
        assert app.main.query_one(Composer).text == ""
        assert turn_markers(app)[0].status == "completed"


async def test_steer_goes_into_the_running_turn(deck: Deck, scripted_model: ScriptedModel) -> None:
    async with deck() as (app, pilot):
        await type_and_send(app, pilot, "take your time")
        await until(pilot, lambda: scripted_model.holding, "the model holds the answer")
        await type_and_send(app, pilot, "change course")
        await until(pilot, lambda: turn_markers(app), "the turn ends")
        users = list(transcript(app).query(UserMessage))
        assert [(u.text, u.has_class("-steered")) for u in users] == [
            ("take your time", False),
            ("change course", True),
        ]
        assert len(turn_markers(app)) == 1


async def test_tab_queues_and_the_queue_runs_in_order(
    deck: Deck, scripted_model: ScriptedModel
) -> None:
    async with deck() as (app, pilot):
        await type_and_send(app, pilot, "take your time")
        await until(pilot, lambda: scripted_model.holding, "the model holds the answer")
        await type_and_send(app, pilot, "count for me", key="tab")
        strip = app.main.query_one("#queue")
        await until(pilot, lambda: strip.display, "the queue shows")
        assert "queued 1: count for me" in str(strip.render())
        scripted_model.release()
        await until(pilot, lambda: len(turn_markers(app)) == 2, "both turns end")
        users = [u.text for u in transcript(app).query(UserMessage)]
        assert users == ["take your time", "count for me"]
        await until(pilot, lambda: not strip.display, "the queue empties")


async def test_escape_stops_the_running_turn(deck: Deck, scripted_model: ScriptedModel) -> None:
    async with deck() as (app, pilot):
        await type_and_send(app, pilot, "take your time")
        await until(pilot, lambda: scripted_model.holding, "the model holds the answer")
        await pilot.press("escape")
        await until(pilot, lambda: turn_markers(app), "the turn ends")
        assert turn_markers(app)[0].status == "interrupted"
        await until(pilot, lambda: "Stopped." in notices(app), "the stop is reported")


async def test_reset_from_the_composer(deck: Deck) -> None:
    async with deck() as (app, pilot):
        await type_and_send(app, pilot, "show markdown")
        await until(pilot, lambda: turn_markers(app), "the turn ends")
        await type_and_send(app, pilot, "/reset")
        await until(
            pilot,
            lambda: any(n.startswith("New thread (generation 1)") for n in notices(app)),
            "the reset is reported",
        )
        assert app.main.query_one(Composer).text == ""


async def test_new_conversations_and_switching_between_them(deck: Deck) -> None:
    async with deck() as (app, pilot):
        first = app.main.current
        await type_and_send(app, pilot, "show markdown")
        await until(pilot, lambda: turn_markers(app), "the first turn ends")
        await pilot.press("ctrl+n")
        await until(pilot, lambda: app.main.current != first, "a new conversation shows")
        second = app.main.current
        assert list(transcript(app).query(UserMessage)) == []
        await type_and_send(app, pilot, "count for me")
        await until(pilot, lambda: turn_markers(app), "the second turn ends")
        assert len(app.main.query_one(ConversationList).listed()) == 2
        await pilot.press("ctrl+up")
        assert app.main.current == first
        assert [m.text for m in transcript(app).query(UserMessage)] == ["show markdown"]
        await pilot.press("ctrl+down")
        assert app.main.current == second


async def test_a_command_output_is_folded_and_expands(deck: Deck) -> None:
    async with deck() as (app, pilot):
        await type_and_send(app, pilot, "print forty lines")
        await until(pilot, lambda: turn_markers(app), "the turn ends")
        [cell] = transcript(app).query(CommandCell)
        # A login shell may print its own warnings first; the command's lines come last.
        lines = cell.output.rstrip("\n").split("\n")
        assert lines[-40:] == [str(n) for n in range(1, 41)]
        shown = str(cell.query_one(".command-output").render())
        assert shown.split() == ["37", "38", "39", "40"]
        hidden = len(lines) - 4
        earlier = cell.query_one(".command-earlier")
        assert f"{hidden} earlier line(s)" in str(earlier.render())
        assert earlier.region.y < cell.query_one(".command-output").region.y, "above the lines"
        await pilot.press("ctrl+o")
        shown = str(cell.query_one(".command-output").render())
        assert shown.split("\n")[-40:] == [str(n) for n in range(1, 41)]
        await pilot.press("ctrl+o")
        assert str(cell.query_one(".command-output").render()).split() == ["37", "38", "39", "40"]


async def test_ten_megabytes_of_output_keep_the_screen_bounded_and_open_whole(
    deck: Deck,
) -> None:
    async with deck() as (app, pilot):
        await type_and_send(app, pilot, "flood the output")
        await until(pilot, lambda: turn_markers(app), "the turn ends")
        [cell] = transcript(app).query(CommandCell)
        assert len(cell.output) == KEPT_OUTPUT_CHARS
        note = str(cell.query_one(".command-more").render())
        assert "(the screen keeps the latest part · o opens all of it)" in note
        cell.focus()
        await pilot.press("o")
        shown = [n.message for n in app._notifications]
        [said] = [m for m in shown if m.startswith("This terminal cannot hand over to a pager")]
        path = Path(said.rsplit("the output is in ", 1)[1])
        assert app.main.current is not None
        assert app.main.backend is not None
        kept = app.main.backend.command_output(app.main.current, cell.entry.key)
        assert path == kept.path
        # More than the screen keeps: codex passes on as much as 10 MB as deltas, or as
        # little as its completed item's first MiB (it drops deltas under such a flood).
        assert (await anyio.Path(path).stat()).st_size == kept.size > 4 * KEPT_OUTPUT_CHARS
        assert (await anyio.Path(path).read_text()).endswith(cell.output[-1000:])


async def test_a_command_keeps_its_latest_output_on_screen_when_codex_completes_it_with_less() -> (
    None
):
    """Codex's completed item carries the first MiB of a command's output at most; when more
    came as deltas, the screen keeps their latest part, not the end of that first MiB."""
    conversation = "bench0000001"
    events: list[EngineEvent] = []

    def stamp() -> Stamp:
        return {"seq": len(events) + 1, "at": 4e9 + len(events), "conversation_id": conversation}

    def command(output: str | None) -> CommandExecutionItem:
        return CommandExecutionItem(
            id="call_1", command="flood", cwd="/", status="completed", aggregated_output=output
        )

    events.append(ConversationUpdated(**stamp(), info=idle_conversation(conversation, "flood")))
    events.append(ItemStarted(**stamp(), turn_id="t", item=command(None)))
    streamed = "x" * (2 * KEPT_OUTPUT_CHARS) + "the end\n"
    events.append(
        ItemDelta(**stamp(), turn_id="t", item_id="call_1", kind="command_output", text=streamed)
    )
    first_part = streamed[: KEPT_OUTPUT_CHARS // 2]
    events.append(
        ItemCompleted(**stamp(), turn_id="t", item=command(first_part), status="completed")
    )
    app = CodexDeckApp(Settings(), replay_backend(events))
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.opened and bool(transcript(app).query(CommandCell)), "shown")
        [cell] = transcript(app).query(CommandCell)
        await until(pilot, lambda: cell.entry.status == "completed", "the command completes")
        assert cell.output.endswith("the end\n")
        assert len(cell.output) == KEPT_OUTPUT_CHARS


async def test_output_with_no_room_to_keep_it_is_shown_and_the_app_says_why(
    deck: Deck, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tally: Ledger
) -> None:
    full = tmp_path / "full"
    full.write_text("")
    monkeypatch.setattr(tempfile, "tempdir", str(full))
    async with deck() as (app, pilot):
        await type_and_send(app, pilot, "print forty lines")
        await until(pilot, lambda: turn_markers(app), "the turn ends")
        [cell] = transcript(app).query(CommandCell)
        assert cell.output.split()[-1] == "40"
        cell.focus()
        await pilot.press("o")
        shown = [n.message for n in app._notifications]
        said = [m for m in shown if m.startswith("The whole output was not kept (Not a directory)")]
        app.main.query_one(Composer).focus()
        await type_and_send(app, pilot, "count for me")
        await until(pilot, lambda: len(turn_markers(app)) == 2, "the next turn ends")
        tally(
            "fault",
            "no room for command output (its spool cannot be written)",
            lost=0 if len(turn_markers(app)) == 2 else 1,
            crashes=int(not app.is_running),
        )
        assert len(said) == 1, shown


async def test_the_trace_pane_toggles_and_lists_the_turn(deck: Deck) -> None:
    async with deck() as (app, pilot):
        await type_and_send(app, pilot, "show markdown")
        await until(pilot, lambda: turn_markers(app), "the turn ends")
        trace = app.main.query_one(TracePane)
        assert not trace.display
        await pilot.press("ctrl+t")
        assert trace.display
        table = trace.query_one("DataTable")
        kinds = [str(table.get_row_at(n)[1]) for n in range(table.row_count)]
        assert {"sent (started)", "turn started", "delta agent_message", "turn completed"} <= set(
            kinds
        )
        await until(pilot, lambda: table.virtual_size.width > 0, "the table is laid out")
        assert table.max_scroll_x == 0, "no column runs past the pane's edge"
        await pilot.press("ctrl+t")
        assert not trace.display


def written_traces(folder: Path) -> list[Path]:
    return sorted(folder.glob("codex-deck-trace-*.jsonl"))


async def test_e_in_the_trace_pane_writes_the_trace_for_the_user_alone(
    deck: Deck, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    async with deck() as (app, pilot):
        await type_and_send(app, pilot, "show markdown")
        await until(pilot, lambda: turn_markers(app), "the turn ends")
        await pilot.press("ctrl+t")
        await pilot.press("e")
        await until(pilot, lambda: written_traces(tmp_path), "the trace is written")
        [written] = written_traces(tmp_path)
        assert written.stat().st_mode & 0o777 == 0o600
        lines = written.read_text().splitlines()
        told = f"Wrote {len(lines)} events to {written} (secrets redacted)."
        await until(pilot, lambda: told in (str(n.message) for n in app._notifications), told)
        assert any("show markdown" in line for line in lines), "the message sent is in it"


async def test_an_approval_is_answered_with_a_key(deck: Deck, workspace: Path) -> None:
    async with deck() as (app, pilot):
        await type_and_send(app, pilot, "approval")
        await until(pilot, lambda: transcript(app).query(ApprovalCard), "the card shows")
        card = transcript(app).query_one(ApprovalCard)
        await go_to_request(app, pilot)
        await until(pilot, lambda: card.has_focus, "ctrl+g moves to the card")
        await pilot.press("y")
        await until(pilot, lambda: turn_markers(app), "the turn ends")
        assert card.resolved
        assert (workspace / "out.txt").read_text() == "hi-from-exec\n"


async def test_text_that_is_not_accepted_stays_with_the_reason(deck: Deck) -> None:
    async with deck() as (app, pilot):
        composer = app.main.query_one(Composer)
        await type_and_send(app, pilot, "/frobnicate")
        note = app.main.query_one("#composer-note")
        await until(pilot, lambda: note.display, "the reason shows")
        assert "unknown command /frobnicate" in str(note.render())
        assert composer.text == "/frobnicate"
        long_text = "x" * (TEXT_INPUT_CHARS + 10)
        await type_and_send(app, pilot, long_text)
        await until(pilot, lambda: "takes 1,048,576 at most" in str(note.render()), "the reason")
        assert composer.text == long_text


async def test_slash_opens_completion_with_usage(deck: Deck) -> None:
    async with deck() as (app, pilot):
        await pilot.press("/", "r")
        completion = app.main.query_one(CommandCompletion)
        assert completion.is_open
        names = [completion.get_option_at_index(n).id for n in range(completion.option_count)]
        assert names == [
            "/reset ",
            "/review ",
            "/resend ",
            "/rename ",
            "/respond ",
            "/revert ",
            "/rules ",
        ]
        await pilot.press("tab")
        assert app.main.query_one(Composer).text == "/reset "
        assert not completion.is_open


async def test_the_completion_moved_to_is_the_one_taken(deck: Deck) -> None:
    async with deck() as (app, pilot):
        await pilot.press("/", "r", "e", "down", "down")
        await pilot.press("tab")
        assert app.main.query_one(Composer).text == "/resend "


async def test_a_conversation_out_of_view_that_needs_an_answer_alerts(
    deck: Deck, monkeypatch: pytest.MonkeyPatch
) -> None:
    alerts: list[str] = []
    monkeypatch.setattr("tui.app.alert", lambda app, text, style: alerts.append(f"{style}: {text}"))
    async with deck() as (app, pilot):
        first = app.main.current
        await pilot.press("ctrl+n")
        await until(pilot, lambda: app.main.current != first, "a second conversation shows")
        second = app.main.current
        await pilot.press("ctrl+up")
        assert app.main.current == first
        backend = app.main.backend
        assert backend is not None
        assert second is not None
        await backend.submit(second, "approval")
        await until(pilot, lambda: alerts, "an alert for the conversation out of view")
        assert alerts == [
            "both: codex-deck: Conversation 2 needs an answer (1 request waits: alt+i)"
        ]
        assert app.main.current == first
        listed = app.main.query_one(ConversationList)
        assert str(listed.get_option_at_index(0).prompt) == "NEEDS ATTENTION · 1"
        assert "[1]" in str(listed.get_option_at_index(1).prompt)


async def test_the_list_the_bell_and_the_inbox_count_the_same_requests(
    deck: Deck, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One asked in view (no bell), two out of view: each bell, the list's heading and the
    inbox say how many wait, the same number, as they come and as one is answered."""
    alerts: list[str] = []
    monkeypatch.setattr("tui.app.alert", lambda app, text, style: alerts.append(text))
    async with deck() as (app, pilot):
        backend = app.main.backend
        assert backend is not None
        listed = app.main.query_one(ConversationList)

        def heading() -> str:
            return str(listed.get_option_at_index(0).prompt)

        shown = app.main.current
        assert shown is not None
        await backend.submit(shown, "approval")
        await until(pilot, lambda: heading() == "NEEDS ATTENTION · 1", "one listed")
        for number in (2, 3):
            other = await backend.new_conversation(f"other {number}")
            await backend.submit(other.id, "approval")
            said = f"codex-deck: other {number} needs an answer ({number} requests wait: alt+i)"
            await until(pilot, lambda said=said: said in alerts, f"the bell for {number}")  # type: ignore[misc]
            await until(
                pilot,
                lambda n=number: heading() == f"NEEDS ATTENTION · {n}",  # type: ignore[misc]
                f"{number} listed",
            )
        assert len(alerts) == 2
        await pilot.press("alt+i")
        title = app.screen.query_one(".inbox-title", Static)
        assert str(title.render()) == "Inbox: 3 requests wait for your answer, oldest first"
        await pilot.press("escape")
        [first, *_] = backend.pending_interactions()
        await backend.respond(first.id, Decline())
        await until(pilot, lambda: heading() == "NEEDS ATTENTION · 2", "two listed")
        await pilot.press("alt+i")
        title = app.screen.query_one(".inbox-title", Static)
        assert str(title.render()) == "Inbox: 2 requests wait for your answer, oldest first"


async def test_history_walks_back_through_sent_messages(deck: Deck) -> None:
    async with deck() as (app, pilot):
        composer = app.main.query_one(Composer)
        for text in ("count for me", "show markdown"):
            await type_and_send(app, pilot, text)
            await until(pilot, lambda: composer.text == "", "the composer clears")
        composer.text = "draft"
        composer.move_cursor((0, 0))
        await pilot.press("up")
        assert composer.text == "show markdown"
        await pilot.press("up")
        assert composer.text == "count for me"
        composer.move_cursor(composer.document.end)
        await pilot.press("down")
        assert composer.text == "show markdown"
        await pilot.press("down")
        assert composer.text == "draft"


async def test_keys_can_be_changed_by_binding_id(deck: Deck) -> None:
    settings = Settings(ui=UiSettings(keys={"trace.toggle": "ctrl+r"}))
    async with deck(settings=settings) as (app, pilot):
        trace = app.main.query_one(TracePane)
        await pilot.press("ctrl+t")
        assert not trace.display
        await pilot.press("ctrl+r")
        assert trace.display


async def test_an_answer_can_be_selected_and_copied(deck: Deck) -> None:
    async with deck() as (app, pilot):
        await type_and_send(app, pilot, "show markdown")
        await until(pilot, lambda: turn_markers(app), "the turn ends")
        await until(pilot, lambda: transcript(app).settled, "the answer is drawn")
        chunks = list(transcript(app).query(MarkdownChunk))
        app.screen.selections = {chunk: Selection(None, None) for chunk in chunks}
        selected = app.screen.get_selected_text()
        assert selected is not None
        assert "Streaming Markdown" in selected
        assert "That is all of it." in selected
        app.screen.action_copy_text()
        assert "Streaming Markdown" in (app.clipboard or "")


async def test_app_keys_work_from_the_message_box(deck: Deck) -> None:
    """ctrl+y and F6 are keys of the text area too (redo, select a line): they did nothing
    while the message box had the focus."""
    async with deck() as (app, pilot):
        await type_and_send(app, pilot, "count for me")
        await until(pilot, lambda: turn_markers(app), "the turn ends")
        composer = app.main.query_one(Composer)
        composer.text = "a draft"
        assert app.focused is composer
        await pilot.press("ctrl+y")
        assert (app.clipboard or "").startswith("one two three")
        assert composer.text == "a draft"
        await pilot.press("f6")
        assert app.main.query_one(TracePane).display
        assert app.main.has_class("-trace-full")


async def test_f1_says_where_each_key_works(deck: Deck) -> None:
    """y, a and n answer a card only once ctrl+g moved to it: F1 said so of none of them."""
    async with deck() as (app, pilot):
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        listed = app.screen.keys
        assert ("y", "Approve — on an approval card (ctrl+g goes there)  [approval.approve]") in (
            listed
        )
        assert ("escape", "Back — on a request's card (ctrl+g goes there)  [card.leave]") in listed
        assert ("ctrl+y", "Copy answer  [copy.answer]") in listed, "an app key: it works anywhere"


def test_no_key_of_the_app_is_taken_by_a_text_field_first() -> None:
    """A key the message box (or a field) binds as well is the app's only if it has
    priority; every other key of F1 reaches the app from the message box."""
    from textual.widgets import Input, TextArea

    from tui.screens.main import MainScreen

    fields = {
        key.strip()
        for field in (TextArea, Input)
        for b in field.BINDINGS
        if isinstance(b, Binding)
        for key in b.key.split(",")
    }
    for owner in (CodexDeckApp, MainScreen):
        for binding in owner.BINDINGS:
            assert isinstance(binding, Binding)
            taken = fields & {key.strip() for key in binding.key.split(",")}
            assert binding.priority or not taken, f"{binding.key} ({binding.action})"


async def test_a_widget_that_draws_raw_model_text_still_sends_no_control_character(
    deck: Deck,
) -> None:
    raw = "before \x1b]0;PWNED\x07\x1b[2J after"
    async with deck() as (app, pilot):
        unguarded = Static(Text(raw, style=Style(link="https://x.test/\x1b]52;c;UFdORUQ\x07")))
        await app.main.mount(unguarded)
        await pilot.pause()
        line = unguarded.render_lines(Region(0, 0, unguarded.size.width, 1))[0]
        assert line.text.startswith("before ]0;PWNED[2J after")
        assert CONTROL.search(line.text) is None
        links = {segment.style.link for segment in line if segment.style is not None}
        assert links == {None}
        assert line.cell_length == unguarded.size.width


async def test_hints_are_asked_for_once_the_engine_is_up_and_told(deck: Deck) -> None:
    asked: list[bool] = []

    async def hints() -> list[str]:
        asked.append(True)
        return ["A codex app-server is already running at unix:///x.sock"]

    async with deck(hints=hints) as (app, pilot):
        await until(
            pilot,
            lambda: any("already running" in str(n.message) for n in app._notifications),
            "the hint is told",
        )
        assert asked == [True]


async def test_new_offers_the_hosts_and_enter_alone_starts_it_on_the_one_in_view(
    deck: Deck,
) -> None:
    async with deck() as (app, pilot):
        composer = app.main.query_one(Composer)
        composer.hosts = ("local", "box")
        await pilot.press("/", "n", "e", "w", "space")
        completion = app.main.query_one(CommandCompletion)
        await until(pilot, lambda: completion.is_open, "the hosts offered")
        names = [completion.get_option_at_index(n).id for n in range(completion.option_count)]
        assert names == ["/new @local ", "/new @box "]
        backend = app.main.backend
        assert backend is not None
        await pilot.press("enter")
        await until(pilot, lambda: len(backend.conversations()) == 2, "a new conversation")
        assert composer.text == ""
