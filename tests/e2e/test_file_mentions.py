"""`@` file mentions on the real binary: codex's search session over the working directory."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from engine.conversations.files import FilesUnreadable
from engine.engine import Engine
from engine.events import FilesFound
from tests.e2e.eventlog import EventLog

pytestmark = pytest.mark.anyio

Deck = tuple[Engine, EventLog]


def files_of(found: FilesFound) -> list[str]:
    return [match.path for match in found.files]


async def test_the_files_that_match_what_is_typed_come_as_events(
    deck: Deck, workspace: Path
) -> None:
    engine, log = deck
    for name in ("src/app.py", "src/zebra_stripes.py", "docs/guide.md"):
        (workspace / name).parent.mkdir(parents=True, exist_ok=True)
        (workspace / name).write_text("")
    conversation = await engine.new_conversation()

    await engine.find_files(conversation.id, "zeb")
    zebra = await log.wait_for(FilesFound, lambda e: e.query == "zeb" and bool(e.files))
    await engine.find_files(conversation.id, "guide")
    guide = await log.wait_for(FilesFound, lambda e: e.query == "guide" and bool(e.files))
    assert files_of(zebra)[0] == "src/zebra_stripes.py"
    assert files_of(guide)[0] == "docs/guide.md"
    assert {e.conversation_id for e in log.of(FilesFound)} == {conversation.id}
    assert not [e for e in engine.full_trace(conversation.id) if isinstance(e, FilesFound)]


async def test_a_working_directory_that_is_gone_is_said_plainly(
    deck: Deck, workspace: Path
) -> None:
    engine, _ = deck
    conversation = await engine.new_conversation()
    shutil.rmtree(workspace)

    with pytest.raises(FilesUnreadable, match=str(workspace)):
        await engine.find_files(conversation.id, "app")
