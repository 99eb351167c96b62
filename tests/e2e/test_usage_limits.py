"""Usage limits on the real binary: codex reads them from the model's response and codex-deck
says them in /status (and warns in the status bar, tests/tui/test_tmux_limits.py)."""

from __future__ import annotations

import pytest

from engine.engine import Engine
from engine.events import UsageLimitsUpdated
from tests.e2e.eventlog import EventLog

pytestmark = pytest.mark.anyio

Deck = tuple[Engine, EventLog]


async def test_status_says_how_much_of_each_limit_is_used(deck: Deck) -> None:
    engine, log = deck
    conversation = await engine.new_conversation()
    before = await engine.execute(conversation.id, "/status")
    assert "not said (codex says them for a ChatGPT sign-in)" in before.message

    await engine.submit(conversation.id, "near the limit")
    said = await log.wait_for(UsageLimitsUpdated)
    await log.turn_completed(conversation.id)

    assert [(w.name, w.used_percent) for w in said.limits] == [("5-hour", 85), ("weekly", 17)]
    status = await engine.execute(conversation.id, "/status")
    assert status.ok
    rows = dict(row.split(None, 2)[::2] for row in status.message.splitlines() if " limit " in row)
    assert rows["5-hour"].startswith("85% used, starts afresh at ")
    assert rows["weekly"].startswith("17% used, starts afresh at ")
    assert engine.session_info(conversation.id).limits == said.limits
