"""A key from the environment, in no known shape, said in a message: it never reaches the
store (its trace or its copy of the message), a recording or an export; and a message read
back from the store with its secret taken out is never sent (or queued) as `[redacted]`."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from engine.records.recording import write_recording
from engine.records.store import Store
from engine.scripted_model import ScriptedModel
from tests.e2e.conftest import open_engine
from tests.e2e.test_recovery import app_in_a_process, deck, notices
from tests.reliability.report import Ledger, asked_of, lost_and_reruns

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


async def test_a_message_read_back_without_its_secret_is_not_sent_again(
    scripted_model: ScriptedModel,
    codex_home: Path,
    workspace: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    tally: Ledger,
) -> None:
    monkeypatch.setenv("CODEX_API_KEY", SECRET)
    store_path = tmp_path / "store.sqlite3"
    cut_off = f"take your time with {SECRET}"
    async with app_in_a_process(store_path, codex_home, workspace, scripted_model, cut_off):
        pass
    queued = f"count for me with {SECRET}"
    async with deck(scripted_model, codex_home, workspace, store_path) as (engine, _, _):
        [info] = engine.conversations()
        assert info.state == "result_unknown"
        resent = await engine.execute(info.id, "/resend")
        assert not resent.ok
        assert "held a secret, which codex-deck does not keep" in resent.message
        second = await engine.new_conversation("second")
        await engine.submit(second.id, "take your time")
        await scripted_model.wait_until_holding()
        assert (await engine.submit(second.id, queued, "queue")).how == "queued"
    scripted_model.release()

    async with deck(scripted_model, codex_home, workspace, store_path) as (engine, _, _):
        [back] = [info for info in engine.conversations() if info.title == "second"]
        said = [n for n in notices(engine, back.id) if "held a secret" in n]
        assert back.queued == 0
        continued = await engine.execute(back.id, "/continue")
    asked = asked_of(scripted_model)
    lost, reruns = lost_and_reruns(asked, [cut_off, "take your time"])
    tally(
        "security",
        "a message that held a secret, read back from the store: not re-sent "
        "or re-queued as [redacted]",
        cases=2,
        lost=lost,
        reruns=reruns,
    )
    assert [text for text in asked if "[redacted]" in text] == []
    assert len(said) == 1
    assert "cannot be queued again as you wrote it: type it again" in said[0]
    assert continued.message == "No queued messages wait."
