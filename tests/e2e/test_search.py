"""Searching every conversation: the ones open now, and archived ones from the store after a
restart; each hit says where the text was and shows the line."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.scripted_model import ScriptedModel
from tests.e2e.test_recovery import deck

pytestmark = pytest.mark.anyio


async def test_search_finds_text_in_open_and_archived_conversations(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path, tmp_path: Path
) -> None:
    store_path = tmp_path / "store.sqlite3"
    async with deck(scripted_model, codex_home, workspace, store_path) as (engine, log, _):
        kept = await engine.new_conversation("Files")
        await engine.submit(kept.id, "create a file")
        await log.turn_completed(kept.id)
        listing = await engine.new_conversation("Listing")
        await engine.submit(listing.id, "run a command")
        await log.turn_completed(listing.id)

        hits = await engine.search("FROM APPLY_PATCH")
        assert [(h.title, h.where, h.archived) for h in hits] == [("Files", "diff", False)]
        assert hits[0].excerpt == "hello from apply_patch"
        assert [h.where for h in await engine.search("ls -la")] == ["command"]
        assert await engine.search("   ") == []
        await engine.archive(kept.id)

    async with deck(scripted_model, codex_home, workspace, store_path) as (engine, _, _):
        assert [c.title for c in engine.conversations()] == ["Listing"]
        hits = await engine.search("from apply_patch")
        assert [(h.title, h.where, h.archived) for h in hits] == [("Files", "diff", True)]
        assert hits[0].thread_id is not None
        listed = await engine.search("listed the working directory")
        assert [(h.title, h.where, h.archived) for h in listed] == [("Listing", "codex", False)]
        listing_id = engine.conversations()[0].id
        archived = await engine.execute(listing_id, "/unarchive")
        assert archived.message.endswith(f"  {kept.id[:8]}  Files")
        back = await engine.execute(listing_id, f"/unarchive {kept.id[:8]}")
        assert back.ok, back.message
        assert back.conversation_id == kept.id
        assert [c.title for c in engine.conversations()] == ["Listing", "Files"]
        history = await engine.history(kept.id)
        assert any("hello.txt" in str(event) for event in history), "its turns come back"
        assert [h.archived for h in await engine.search("from apply_patch")] == [False]
