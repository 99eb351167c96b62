"""/review on the real binary: codex reviews the uncommitted changes with the scripted model's
reviewer, and its findings are read back out of the review."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.conversations.review import findings_of
from engine.engine import Engine
from engine.events import ItemCompleted
from engine.protocol import AgentMessageItem, ReviewModeItem
from tests.e2e.eventlog import EventLog
from tests.e2e.test_diffs import checkout

pytestmark = pytest.mark.anyio

Deck = tuple[Engine, EventLog]


async def test_a_review_of_the_uncommitted_changes_lists_its_findings(
    deck: Deck, workspace: Path
) -> None:
    engine, log = deck
    checkout(workspace)
    conversation = await engine.new_conversation()

    started = await engine.execute(conversation.id, "/review")

    assert started.ok, started.message
    done = await log.turn_completed(conversation.id)
    assert done.status == "completed"
    [review] = [
        e.item
        for e in log.of(ItemCompleted, conversation.id)
        if isinstance(e.item, ReviewModeItem) and e.item.type == "exitedReviewMode"
    ]
    answers = [
        e.item
        for e in log.of(ItemCompleted, conversation.id)
        if isinstance(e.item, AgentMessageItem)
    ]
    assert review.review not in [answer.text for answer in answers], "its repeat is left out"
    findings = findings_of(review.review)
    assert [(f.priority, f.path, f.start, f.end) for f in findings] == [
        (1, "greeting.txt", 1, 2),
        (3, "notes.md", 4, 4),
    ]
    assert findings[0].title == "The greeting is written twice"
    assert "second run leaves two copies" in findings[0].body


async def test_review_outside_a_checkout_says_so(deck: Deck) -> None:
    engine, _ = deck
    conversation = await engine.new_conversation()
    refused = await engine.execute(conversation.id, "/review")
    assert not refused.ok
    assert "needs a git checkout" in refused.message
    bad = await engine.execute(conversation.id, "/review base")
    assert not bad.ok
    assert "usage: /review" in bad.message
