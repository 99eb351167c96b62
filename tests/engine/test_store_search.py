"""Searching the store's archived conversations, its trace read in parts at once: every hit
is found whichever part it falls in, newest first, as many as asked."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from engine.events import ItemCompleted, SideChatAnswered, TurnStarted
from engine.protocol import AgentMessageItem
from engine.records import search as searching
from engine.records.recording import event_to_json
from engine.records.store import Store

pytestmark = pytest.mark.anyio

SAID = 37
"""Messages that say the word, one in every third row of the trace."""


def kept(path: Path) -> None:
    """An archived conversation whose trace says "needle N" in every third row, and an open
    one that says it too (the store is searched for the archived ones only)."""
    Store.open(path).close()
    connection = sqlite3.connect(path)
    with connection:
        for conversation, archived in (("gone", 1), ("open", 0)):
            connection.execute(
                "INSERT INTO conversations (id, title, cwd, generation, archived, created_at, "
                "updated_at) VALUES (?, ?, '/w', 0, ?, 1, 1)",
                (conversation, conversation.title(), archived),
            )
        at = 0.0
        for number in range(SAID):
            for conversation in ("gone", "open"):
                at += 1
                for event in (
                    TurnStarted(
                        seq=0,
                        at=at,
                        conversation_id=conversation,
                        turn_id=f"t{number}",
                        thread_id="th",
                        generation=0,
                        submission_id=None,
                    ),
                    ItemCompleted(
                        seq=0,
                        at=at,
                        conversation_id=conversation,
                        turn_id=f"t{number}",
                        item=AgentMessageItem(id=f"m{number}", text=f"the needle {number}."),
                        status="completed",
                    ),
                ):
                    connection.execute(
                        "INSERT INTO trace (conversation_id, turn_id, at, event) "
                        "VALUES (?, ?, ?, ?)",
                        (conversation, f"t{number}", at, json.dumps(event_to_json(event))),
                    )
    connection.close()


@pytest.mark.parametrize("readers", [1, 2, 3, 7, 200])
async def test_every_archived_hit_is_found_whichever_part_it_is_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, readers: int
) -> None:
    monkeypatch.setattr(searching, "READERS", readers)
    kept(tmp_path / "store.sqlite3")
    store = Store.open(tmp_path / "store.sqlite3")
    try:
        every = await searching.search([], store, "NEEDLE", limit=1000)
        newest = await searching.search([], store, "needle", limit=5)
    finally:
        store.close()
    assert [hit.excerpt for hit in every] == [f"the needle {n}." for n in reversed(range(SAID))]
    assert {(hit.conversation_id, hit.archived) for hit in every} == {("gone", True)}
    assert [hit.excerpt for hit in newest] == [f"the needle {n}." for n in range(36, 31, -1)]


async def test_an_archived_conversations_side_answers_are_found(tmp_path: Path) -> None:
    kept(tmp_path / "store.sqlite3")
    connection = sqlite3.connect(tmp_path / "store.sqlite3")
    with connection:
        answered = SideChatAnswered(
            seq=0,
            at=1000.0,
            conversation_id="gone",
            side_chat_id="s1",
            question="what about the haystack?",
            answer="It is made of hay.",
            cut=False,
        )
        connection.execute(
            "INSERT INTO trace (conversation_id, turn_id, at, event) VALUES (?, NULL, ?, ?)",
            ("gone", 1000.0, json.dumps(event_to_json(answered))),
        )
    connection.close()
    store = Store.open(tmp_path / "store.sqlite3")
    try:
        hits = await searching.search([], store, "made of hay", limit=10)
        asked = await searching.search([], store, "haystack", limit=10)
    finally:
        store.close()
    assert [(h.where, h.excerpt, h.side_chat_id, h.archived) for h in hits] == [
        ("side chat s1", "It is made of hay.", "s1", True)
    ]
    assert [h.where for h in asked] == ["side question s1"]
