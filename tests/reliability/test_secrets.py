"""A key from the environment, in no known shape, said in a message: it never reaches the
store (its trace or its copy of the message), a recording or an export."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from engine.recording import write_recording
from engine.scripted_model import ScriptedModel
from engine.store import Store
from tests.e2e.conftest import open_engine
from tests.reliability.report import Ledger

pytestmark = pytest.mark.anyio

SECRET = "local-gateway-token-7f3a9c"


def written_files(directory: Path) -> dict[str, bytes]:
    """The store's files, the recording and the exports, by name."""
    return {
        path.name: path.read_bytes()
        for path in sorted(directory.glob("*"))
        if path.name.startswith(("store", "session", "trace", "notes"))
    }


async def test_a_known_secret_said_in_a_message_is_written_nowhere(
    scripted_model: ScriptedModel,
    codex_home: Path,
    workspace: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    tally: Ledger,
) -> None:
    monkeypatch.setenv("CODEX_API_KEY", SECRET)
    store_path = tmp_path / "store.sqlite3"
    recording = tmp_path / "session.jsonl"
    store = Store.open(store_path)
    try:
        async with open_engine(scripted_model, codex_home, workspace, store=store) as (
            engine,
            log,
        ):
            async with anyio.create_task_group() as tasks:
                stream = engine.events()
                tasks.start_soon(write_recording, recording, [], stream, engine.redact)
                conversation = await engine.new_conversation()
                await engine.submit(conversation.id, f"my key is {SECRET}; count for me")
                assert (await log.turn_completed(conversation.id)).status == "completed"
                stream.close()
            await engine.export_trace(conversation.id, tmp_path / "trace.jsonl")
            await engine.export_markdown(conversation.id, tmp_path / "notes.md")
            await store.flush()
    finally:
        store.close()
    [request] = scripted_model.responses_requests()
    assert SECRET in request.user_text, "the message itself went to the model as typed"
    written = written_files(tmp_path)
    tally(
        "security",
        "a provider key from the environment said in a message: store, recording, exports",
        cases=len(written),
    )
    assert set(written) >= {"store.sqlite3", "session.jsonl", "trace.jsonl", "notes.md"}
    assert [name for name, data in written.items() if SECRET.encode() in data] == []
    assert b"my key is [redacted]; count for me" in written["session.jsonl"]
    assert b"my key is [redacted]" in written["notes.md"]
