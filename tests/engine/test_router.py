"""How the router turns what codex sent in one read into engine events."""

from __future__ import annotations

from typing import Any

import msgspec

from engine.conversations.conversation import Conversation, Conversations
from engine.conversations.emitter import Emitter
from engine.conversations.interactions import Interactions
from engine.conversations.journal import Journal
from engine.conversations.router import Router
from engine.events import EngineEvent, ItemDelta, ItemStarted, Notice
from engine.protocol.notifications import parse_notification
from engine.records.trace import Redactor
from engine.transport.appserver import Received


def said(method: str, **params: Any) -> Received:
    return parse_notification(
        method, msgspec.json.encode({"threadId": "t", "turnId": "u", **params})
    )


def routed(read: list[Received]) -> list[EngineEvent]:
    """The events a conversation on thread `t` emits for what was read at once."""
    emitted: list[EngineEvent] = []
    emitter = Emitter(100, sink=lambda event, _: emitted.append(event))
    conversations = Conversations()
    conversation = Conversation(id="c", title="t", cwd="/w")
    conversations.add(conversation)
    conversations.bind(conversation, "t")
    journal = Journal(None, 100, Redactor(()))
    router = Router(emitter, conversations, Interactions(), lambda _: None, journal, lambda _: None)
    with emitter.batch():
        router.route(read)
    return emitted


def test_a_run_of_deltas_read_at_once_is_one_delta_of_their_text() -> None:
    """A delta is a few characters, and codex sends thousands a second: each run of deltas
    of one part of an item is emitted as one (saying how many it joins), in its place among
    the rest."""
    answer, summary = "item/agentMessage/delta", "item/reasoning/summaryTextDelta"
    command = {"type": "commandExecution", "id": "x", "command": "ls", "cwd": "/w"}
    events = routed(
        [
            said(answer, itemId="a", delta="Hel"),
            said(answer, itemId="a", delta="lo"),
            said(summary, itemId="r", delta="Thinking", summaryIndex=0),
            said(summary, itemId="r", delta=" hard", summaryIndex=0),
            said(summary, itemId="r", delta="Then", summaryIndex=1),
            said(answer, itemId="a", delta=","),
            said("item/started", item={**command, "status": "inProgress"}),
            said(answer, itemId="a", delta=" world"),
            said(answer, itemId="a", delta="!"),
        ]
    )

    shown = [
        (e.kind, e.index, e.text, e.joined) if isinstance(e, ItemDelta) else type(e).__name__
        for e in events
    ]
    assert shown == [
        ("agent_message", 0, "Hello", 2),
        ("reasoning_summary", 0, "Thinking hard", 2),
        ("reasoning_summary", 1, "Then", 1),
        ("agent_message", 0, ",", 1),
        ItemStarted.__name__,
        ("agent_message", 0, " world!", 2),
    ]
    answers = [e.item_id for e in events if isinstance(e, ItemDelta) and e.kind == "agent_message"]
    assert len(set(answers)) == 1


def test_a_warning_codex_gives_of_its_configuration_at_each_start_is_said_once() -> None:
    """codex warns of its configuration each time it starts (bubblewrap not on PATH, say):
    after a reconnect, the same warning is not said again; another one is."""

    def warned(summary: str) -> Received:
        return parse_notification("configWarning", msgspec.json.encode({"summary": summary}))

    bubblewrap = "could not find bubblewrap on PATH; using the bundled one"
    started_again = [warned(bubblewrap), warned("model_reasoning_summary is deprecated")]
    events = routed([warned(bubblewrap), *started_again])
    assert [e.text for e in events if isinstance(e, Notice)] == [
        bubblewrap,
        "model_reasoning_summary is deprecated",
    ]
