"""How the app looks, replaying scenes recorded from the real engine (see record_scenes.py).

Each test says what a reviewer should see in its SVG. Update with `--snapshot-update` after a
deliberate change, and look at the new SVGs before committing them.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, TextArea

from engine.records.recording import read_recording
from engine.replay import replay_backend
from engine.settings import Settings, UiSettings
from tests.tui.test_starting import FirstFrame
from tui.app import CodexDeckApp
from tui.cli import DEMO_TOUR
from tui.screens.starting import StartingBox
from tui.widgets.approval import ApprovalCard
from tui.widgets.card import InteractionCard
from tui.widgets.transcript import Transcript

RECORDINGS = Path(__file__).with_name("recordings")
TOUR = "Try typing: show markdown · run a command · approval · create a file"
Compare = Callable[..., bool]


@pytest.fixture(autouse=True)
def utc() -> Iterator[None]:
    """Trace times are shown in local time; snapshots use UTC."""
    before = os.environ.get("TZ")
    os.environ["TZ"] = "UTC"
    time.tzset()
    yield
    if before is None:
        del os.environ["TZ"]
    else:
        os.environ["TZ"] = before
    time.tzset()


def app_for(scene: str, theme: str = "codex-deck-dark", paused: bool = False) -> CodexDeckApp:
    settings = Settings(ui=UiSettings(theme=theme))
    events = read_recording(RECORDINGS / f"{scene}.jsonl")
    return CodexDeckApp(settings, replay_backend(events, paused=paused), welcome="", demo_tour=TOUR)


async def settled(pilot: Pilot[None]) -> None:
    """Wait until the replay is drawn; no blinking cursor in the picture."""
    app = pilot.app
    assert isinstance(app, CodexDeckApp)
    while not app.opened:
        await pilot.pause()
    await app.workers.wait_for_complete()
    for _ in range(200):
        await pilot.pause()
        transcripts = app.main.query(Transcript)
        # A transcript out of view draws what came for it once shown.
        drawn = all(not t.display or (t.settled and t.following) for t in transcripts)
        if transcripts and drawn and app.focused is not None:
            break  # drawn, and followed to its end (a line shown above the box shortens it)
    else:
        raise AssertionError("the replay was not drawn")
    for field in app.main.query("Input, TextArea"):
        assert isinstance(field, Input | TextArea)
        field.cursor_blink = False
    await pilot.pause()


async def reached(pilot: Pilot[None]) -> None:
    """Drawn, then ctrl+g moved to the card waiting, shown from its top once laid out."""
    await settled(pilot)
    await pilot.press("ctrl+g")
    for _ in range(200):
        await pilot.pause()
        if isinstance(pilot.app.focused, InteractionCard):
            break
    await still(pilot)


async def still(pilot: Pilot[None]) -> None:
    """Wait until no transcript scrolls or grows any more, then repaint their scroll bars: under
    load the picture could keep a thumb drawn half a cell from where its view had settled."""

    def where() -> list[tuple[float, int, int]]:
        return [
            (view.scroll_y, view.virtual_size.height, view.size.height)
            for view in pilot.app.screen.query(Transcript)
        ]

    last: list[tuple[float, int, int]] = []
    for _ in range(200):
        await pilot.pause()
        now = where()
        if now == last:
            break
        last = now
    else:
        raise AssertionError("the view kept moving")
    for view in pilot.app.screen.query(Transcript):
        view.vertical_scrollbar.refresh()
    await pilot.pause()


def test_empty_start(snap_compare: Compare) -> None:
    """One idle conversation in the list, the demo tour in the transcript, an empty
    composer with its border, the status bar (idle · replay …) and the footer keys."""
    assert snap_compare(app_for("empty"), terminal_size=(120, 36), run_before=settled)


def test_first_frame_holding_a_message(snap_compare: Compare) -> None:
    """The first frame, before the engine is loaded: the demo's tour, the message box holding
    `show markdown` (typed and sent at once), and the line under it saying that it goes as
    soon as codex is up."""

    async def sent(pilot: Pilot[None]) -> None:
        await pilot.press(*"show markdown", "enter")
        pilot.app.screen.query_one(StartingBox).cursor_blink = False
        await pilot.pause()

    app = FirstFrame(DEMO_TOUR)
    assert snap_compare(app, terminal_size=(100, 30), run_before=sent)


def test_streaming_answer(snap_compare: Compare) -> None:
    """Mid-answer: the user's message, the collapsed reasoning line, the first part of the
    Markdown answer (heading, bullet list) and the conversation shown as running."""
    assert snap_compare(app_for("streaming"), terminal_size=(120, 36), run_before=settled)


def test_command_cell_expanded(snap_compare: Compare) -> None:
    """`seq 1 40` run by the agent, its output expanded with ctrl+o: all forty numbers under
    the `$ seq 1 40` line, then the agent's answer and the turn marker."""
    assert snap_compare(
        app_for("forty_lines"), press=["ctrl+o"], terminal_size=(120, 60), run_before=settled
    )


def test_file_diff_and_answered_approval(snap_compare: Compare) -> None:
    """The rich turn: an approval card marked accepted, the command, `notes.md (new file)`
    with three green `+` lines, the final answer and `turn completed · 1.2 s`."""
    assert snap_compare(app_for("everything"), terminal_size=(120, 50), run_before=settled)


def test_replay_stepped_to_the_approval(snap_compare: Compare) -> None:
    """A paused replay of the rich turn stepped with f10 until its request shows: the card
    waits with its y/a/n/c keys as it did when recorded (nothing after it is shown yet), the
    footer offers f9 and f10, the status bar says replay (read-only)."""

    async def stepped(pilot: Pilot[None]) -> None:
        app = pilot.app
        assert isinstance(app, CodexDeckApp)
        for _ in range(200):
            await pilot.pause()
            if app.opened and app.main.query(ApprovalCard):
                break
            await pilot.press("f10")
        else:
            raise AssertionError("no request in the replay")
        for _ in range(50):
            await pilot.pause()
            if all(t.settled for t in app.main.query(Transcript)):
                break
        for field in app.main.query("Input, TextArea"):
            assert isinstance(field, Input | TextArea)
            field.cursor_blink = False
        await pilot.pause()

    app = app_for("everything", paused=True)
    assert snap_compare(app, terminal_size=(120, 40), run_before=stepped)


def test_pending_approval(snap_compare: Compare) -> None:
    """A command waiting for approval: the card (warning border) with the full command, cwd,
    reason and its keys after `ctrl+g goes here`; the message box keeps the focus, the line
    above it says `⚠ Run this command? [qx0a] · ctrl+g goes to it · or /approve qx0a`, the key bar
    offers ^g Answer; the list shows NEEDS ATTENTION with [1]."""
    assert snap_compare(app_for("approval"), terminal_size=(120, 40), run_before=settled)


def test_inbox_with_requests_from_two_conversations_and_a_sub_agent(snap_compare: Compare) -> None:
    """alt+i over three conversations waiting: "Inbox: 3 requests wait for your answer, oldest
    first", then `⚠ Run this command? [qx1a] · Deploy script  waited 0:41` with its command
    (highlighted), `⚠ Run this command? [qx0a] · Flaky test · a sub-agent asks  waited 0:13`
    (the parent's turn has ended: the list says "idle · 1 request waits" under it), then
    `⚠ Apply these changes? [qx2a] · Conversation 1  waited 0:01` with the file it writes;
    "enter goes to its card (answer there) · esc back"; the list's heading NEEDS ATTENTION · 3."""
    assert snap_compare(
        app_for("inbox"), press=["alt+i"], terminal_size=(120, 40), run_before=settled
    )


def test_a_rule_offered_says_how_far_it_reaches(snap_compare: Compare) -> None:
    """The same command asked a third time, codex offering to save it as a rule, the card
    reached with ctrl+g: below the command, `a:` says this same command runs again without
    asking for the rest of this session (until /reset; nothing saved), and `p:` names the
    rule, says it holds in every session from now on, where codex keeps it (its rules file)
    and that of this conversation's earlier commands it would have run 1: the same command
    (the `seq 1 40` between is not one); the keys below add `p save the rule`."""
    assert snap_compare(app_for("rule"), terminal_size=(120, 40), run_before=reached)


def test_a_change_reviewed_hunk_by_hunk_with_one_to_take_back(snap_compare: Compare) -> None:
    """A change of two hunks to story.txt waiting for approval, ctrl+g then r: "Accept with
    hunks taken back? [qx0a]", the first hunk (`@@ -1,3 +1,3 @@`, line 2 to LINE TWO)
    marked [keep], the second (`@@ -9,3 +9,3 @@`, line 10 to LINE TEN) highlighted and
    marked [take back] in red after space; the keys: space keep / take back · enter accept,
    then take the marked hunks back · esc back, nothing done."""
    assert snap_compare(
        app_for("two_hunks"),
        press=["r", "down", "space"],
        terminal_size=(120, 40),
        run_before=reached,
    )


def test_trace_pane(snap_compare: Compare) -> None:
    """ctrl+t opens the trace beside the transcript: one row per event with time (UTC),
    kind, label and duration; runs of deltas folded into one row with a ×count."""
    assert snap_compare(
        app_for("everything"), press=["ctrl+t"], terminal_size=(140, 45), run_before=settled
    )


def test_turn_timeline(snap_compare: Compare) -> None:
    """ctrl+t then t: over the trace, the turn's timeline — `turn … · completed · 8.9 s ·
    waited on you 6.2 s`, then one bar per item on a shared axis: the reasoning (a sliver),
    the command (long: it waited for approval, then ran), `you: command` (the 6.2 s wait),
    `edit notes.md` (a sliver) and the answer at the end, each with its duration, and the
    axis from 0 to 8.9 s under them."""
    assert snap_compare(
        app_for("timeline"), press=["ctrl+t", "t"], terminal_size=(140, 45), run_before=settled
    )


def test_help_screen(snap_compare: Compare) -> None:
    """F1 over the main screen: the keys with their binding ids, the composer keys, and
    every slash command with its usage."""
    assert snap_compare(app_for("empty"), press=["f1"], terminal_size=(120, 50), run_before=settled)


def test_light_theme(snap_compare: Compare) -> None:
    """The rich turn in the light theme: dark text on a light background, readable diff
    colours, the accepted approval and the answer."""
    assert snap_compare(
        app_for("everything", theme="codex-deck-light"),
        terminal_size=(120, 50),
        run_before=settled,
    )


def test_80_by_24(snap_compare: Compare) -> None:
    """A narrow terminal: the conversation list steps aside, the transcript (end of the
    Markdown answer and the turn marker), the composer, status bar and footer all fit."""
    assert snap_compare(app_for("markdown"), terminal_size=(80, 24), run_before=settled)


def test_command_card_with_a_long_command(snap_compare: Compare) -> None:
    """A 270-character command waiting for approval, wrapped over several lines inside the
    card and never cut: the whole `for name in alpha … zulu; do printf …; done; wc -l` reads
    (ctrl+g moved to it: it shows from its top, and the footer offers its keys)."""
    assert snap_compare(app_for("long_command"), terminal_size=(100, 48), run_before=reached)


def test_file_change_card_with_a_long_diff_scrolled(snap_compare: Compare) -> None:
    """`long.txt (new file)` with 60 `+` lines waiting for approval: ctrl+g moved to the card
    (its top in view) and page-up scrolled the transcript a page further up, to the end of
    the file-change cell's diff (`+line 38` … `+line 60`, `applying`); the footer still
    offers the card's keys."""
    assert snap_compare(
        app_for("long_diff"), press=["pageup"], terminal_size=(110, 30), run_before=reached
    )


def test_question_form(snap_compare: Compare) -> None:
    """Plan mode's two questions (Colour, Size), each with numbered options and an
    "or type an answer" field; keys hint below; the message box keeps the focus, and the
    line above it says `⚠ codex has a question [qx0a] · ctrl+g goes to it`."""
    assert snap_compare(app_for("question"), terminal_size=(110, 40), run_before=settled)


def test_elicitation_form(snap_compare: Compare) -> None:
    """A form from the `issue-tracker` MCP server: Title * (text), Priority * (select),
    Estimate (hours) (number), Notify the team (checkbox), and ctrl+s / ctrl+x / ctrl+k."""
    assert snap_compare(app_for("form"), terminal_size=(110, 40), run_before=settled)


def test_expired_card(snap_compare: Compare) -> None:
    """An approval left unanswered when the turn was stopped: the card is greyed and says
    `expired — the turn ended (interrupted)`; the turn marker says interrupted."""
    assert snap_compare(app_for("expired"), terminal_size=(110, 36), run_before=settled)


def test_side_panel_beside_a_streaming_conversation(snap_compare: Compare) -> None:
    """The conversation still running ("Thinking this through step by step", list says
    running) while the side panel on the right shows side chat s1: the question "what did you
    do?" and its Markdown answer, with the box to ask aside at the bottom."""
    assert snap_compare(app_for("side"), terminal_size=(130, 34), run_before=settled)


def test_two_side_chats_listed(snap_compare: Compare) -> None:
    """Two side chats listed at the top of the panel (s1 "what did you do?", s2 "try a
    command", s2 active and showing its answer that no tools are available); the panel title
    says 2 open."""
    assert snap_compare(app_for("two_sides"), terminal_size=(130, 34), run_before=settled)
