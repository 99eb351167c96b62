"""Load on one app-server: eight conversations, each with a running turn and five messages
queued behind it. The queue limit refuses the sixth with a clear message, every accepted
message is answered exactly once, and it all ends before a watchdog's deadline."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from engine.events import TurnCompleted
from engine.scripted_model import ScriptedModel
from engine.settings import LimitsSettings, Settings
from tests.e2e.conftest import open_engine

pytestmark = pytest.mark.anyio

CONVERSATIONS = 8
QUEUED = 5
WATCHDOG_SECONDS = 150


async def test_eight_conversations_with_full_queues_all_finish_once_each(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path
) -> None:
    limits = LimitsSettings(running_conversations=CONVERSATIONS, queued_messages=QUEUED)
    base = Settings(limits=limits)
    async with open_engine(scripted_model, codex_home, workspace, base) as (engine, log):
        conversations = [await engine.new_conversation() for _ in range(CONVERSATIONS)]
        accepted: list[str] = []
        for number, conversation in enumerate(conversations):
            first = f"count for me {number}-0"
            outcome = await engine.submit(conversation.id, first)
            assert outcome.how == "started", outcome.message
            accepted.append(first)
            for queued in range(1, QUEUED + 1):
                text = f"count for me {number}-{queued}"
                outcome = await engine.submit(conversation.id, text, "queue")
                assert outcome.how == "queued", outcome.message
                accepted.append(text)
            refused = await engine.submit(conversation.id, f"one too many {number}", "queue")
            assert not refused.accepted
            assert refused.message == (
                f"{QUEUED} messages are already waiting in this conversation (the limit is "
                f"{QUEUED}). Nothing was sent."
            )

        with anyio.fail_after(WATCHDOG_SECONDS):
            for conversation in conversations:
                await log.turn_completed(conversation.id, QUEUED + 1)
        ended = log.of(TurnCompleted)
        assert len(ended) == CONVERSATIONS * (QUEUED + 1)
        assert {turn.status for turn in ended} == {"completed"}
        asked = [request.user_text for request in scripted_model.responses_requests()]
        assert sorted(asked) == sorted(accepted), "each accepted message was sent once"
        assert not any(text.startswith("one too many") for text in asked)
        assert all(info.queued == 0 and info.state == "idle" for info in engine.conversations())
