"""Rewind on the real binary: going back before a message forks the thread before its turn into
a new conversation; the conversation it came from keeps its whole path."""

from __future__ import annotations

import pytest

from engine.engine import Engine
from engine.events import ItemCompleted
from engine.protocol import UserMessageItem
from engine.scripted_model import ScriptedModel
from tests.e2e.eventlog import EventLog

pytestmark = pytest.mark.anyio

Deck = tuple[Engine, EventLog]


def sent(log: EventLog, conversation_id: str) -> list[tuple[str, str]]:
    """(turn, text) of each message of the conversation, in order."""
    return [
        (e.turn_id, e.item.text)
        for e in log.of(ItemCompleted, conversation_id)
        if isinstance(e.item, UserMessageItem)
    ]


async def test_going_back_before_a_message_keeps_the_old_path(
    deck: Deck, scripted_model: ScriptedModel
) -> None:
    engine, log = deck
    conversation = await engine.new_conversation("first try")
    for number, text in enumerate(("count for me", "show markdown", "count for me again"), 1):
        await engine.submit(conversation.id, text)
        await log.turn_completed(conversation.id, count=number)
    [_, (second_turn, _), _] = sent(log, conversation.id)

    gone_back = await engine.rewind(conversation.id, second_turn)

    assert gone_back.ok, gone_back.message
    rewound = gone_back.conversation_id
    assert rewound is not None
    assert rewound != conversation.id
    history = await engine.history(rewound)
    kept = [
        e.item.text
        for e in history
        if isinstance(e, ItemCompleted) and isinstance(e.item, UserMessageItem)
    ]
    assert kept == ["count for me"], "only what came before the message"
    old = await engine.history(conversation.id)
    assert (
        len(
            [e for e in old if isinstance(e, ItemCompleted) and isinstance(e.item, UserMessageItem)]
        )
        == 3
    )

    await engine.submit(rewound, "show markdown, edited")
    await log.turn_completed(rewound)
    asked = scripted_model.responses_requests()[-1]
    assert asked.user_texts() == ["count for me", "show markdown, edited"]
