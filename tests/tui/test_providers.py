"""Answers stay in their own turn whatever ids the model provider gives its items: unique ids
(as OpenAI), the same ids in every response (`msg_0`, `rs_0`, `call_0`, as many local and
proxy servers send), or none. Live, with a steer and with several messages in one turn, and
after a restart (the turns rebuilt from the store and from codex's thread)."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.scripted_model import ScriptedModel
from tests.tui.conftest import Deck, transcript, until
from tui.app import CodexDeckApp
from tui.entries import AgentEntry, CommandEntry, ReasoningEntry, TurnEntry, UserEntry
from tui.widgets.composer import Composer
from tui.widgets.message import AgentMessage
from tui.widgets.notes import TurnMarker

pytestmark = pytest.mark.anyio

IDS = pytest.mark.parametrize("scripted_model", ["unique", "reused", "none"], indirect=True)

TURNS = [
    ("user", "show markdown"),
    ("reasoning", "The user wants to see how formatted text streams."),
    ("answer", "## Streaming Markdown"),
    ("turn", "completed"),
    ("user", "in three parts"),
    ("reasoning", "I will answer in three messages."),
    ("answer", "Part 1 of the answer"),
    ("answer", "Part 2 of the answer"),
    ("answer", "Part 3 of the answer"),
    ("turn", "completed"),
    ("user", "run a command"),
    ("reasoning", "Listing the working directory is safe"),
    ("command", "ls -la"),
    ("answer", "I listed the working directory"),
    ("turn", "completed"),
    ("user", "take your time"),
    ("answer", "Thinking this through"),
    ("user", "change course"),
    ("answer", "Changing course as you asked."),
    ("turn", "completed"),
]
"""What the transcript shows, in order: each entry's kind and a part of its text."""
REOPENED = [(kind, text) for kind, text in TURNS if kind != "reasoning" and "Thinking" not in text]
"""What it shows reopened: the same but for the reasoning, and the answer the steer cut short
(codex's thread keeps neither, and the store lets an answer's text so far go once its turn
has completed: only a turn that never completed shows an answer cut off)."""


def shown(app: CodexDeckApp) -> list[tuple[str, str]]:
    """The transcript's entries as (kind, text), in the order they are shown."""
    described: list[tuple[str, str]] = []
    for entry in transcript(app).entries:
        if isinstance(entry, UserEntry):
            described.append(("user", entry.text))
        elif isinstance(entry, ReasoningEntry):
            described.append(("reasoning", entry.text))
        elif isinstance(entry, AgentEntry):
            described.append(("answer", entry.text))
        elif isinstance(entry, CommandEntry):
            described.append(("command", entry.item.command))
        elif isinstance(entry, TurnEntry):
            described.append(("turn", entry.event.status))
    return described


def matches(seen: list[tuple[str, str]], wanted: list[tuple[str, str]]) -> bool:
    return len(seen) == len(wanted) and all(
        kind == want_kind and want in text
        for (kind, text), (want_kind, want) in zip(seen, wanted, strict=True)
    )


def listing(seen: list[tuple[str, str]]) -> str:
    return "\n".join(f"{kind}: {text[:40]!r}" for kind, text in seen)


async def send(app: CodexDeckApp, pilot: object, text: str) -> None:
    app.main.query_one(Composer).text = text
    await pilot.press("enter")  # type: ignore[attr-defined]


def turns(app: CodexDeckApp) -> int:
    return len(transcript(app).query(TurnMarker))


@IDS
async def test_each_answer_stays_in_its_own_turn(
    deck: Deck, scripted_model: ScriptedModel, tmp_path: Path
) -> None:
    store = tmp_path / "store.sqlite3"
    async with deck(store=store) as (app, pilot):
        for count, text in enumerate(["show markdown", "in three parts", "run a command"], 1):
            await send(app, pilot, text)
            await until(pilot, lambda n=count: turns(app) == n, f"turn {count} ends")  # type: ignore[misc]
        await send(app, pilot, "take your time")
        await until(pilot, lambda: scripted_model.holding, "the model holds the answer")
        await send(app, pilot, "change course")
        await until(pilot, lambda: turns(app) == 4, "the steered turn ends")
        await until(pilot, lambda: transcript(app).settled, "the answers are drawn")
        assert matches(shown(app), TURNS), listing(shown(app))
        drawn = [message.text for message in transcript(app).query(AgentMessage)]
        assert [text[:20] for text in drawn] == [
            text[:20] for kind, text in TURNS if kind == "answer"
        ]

    async with deck(store=store) as (app, pilot):
        await until(pilot, lambda: turns(app) == 4, "the history shows")
        assert matches(shown(app), REOPENED), listing(shown(app))
