"""Recordings: written as the stream goes, read back as the same events, refused clearly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.events import EngineEvent, ItemDelta, Notice, Stamp
from engine.records.recording import (
    RECORDING_VERSION,
    RecordingError,
    read_recording,
    recording_header,
    write_recording,
)
from engine.transport.fanout import Fanout

pytestmark = pytest.mark.anyio


def notice(seq: int, at: float, text: str = "hello") -> Notice:
    return Notice(**Stamp(seq=seq, at=at, conversation_id="c1"), level="info", text=text)


async def test_a_recording_is_read_back_as_the_same_events(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    fanout: Fanout[EngineEvent] = Fanout()
    stream = fanout.subscribe()
    delta = ItemDelta(
        **Stamp(seq=2, at=10.5, conversation_id="c1"),
        turn_id="t1",
        item_id="i1",
        kind="agent_message",
        text="héllo",
    )
    for event in (delta, notice(3, 11.0)):
        fanout.publish(event)
    fanout.close()
    written = await write_recording(path, [notice(1, 10.0, "before")], stream, str)
    assert written == 3
    lines = path.read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[0]) == recording_header()
    assert read_recording(path) == [notice(1, 10.0, "before"), delta, notice(3, 11.0)]


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("", "not a codex-deck recording"),
        ('{"type": "Notice"}\n', "not a codex-deck recording"),
        ("just text\n", "line 1: not JSON"),
        (
            json.dumps(
                {**recording_header(), "version": RECORDING_VERSION + 1, "codex_deck": "9.0"}
            ),
            f"recorded in format {RECORDING_VERSION + 1} by codex-deck 9.0",
        ),
        (json.dumps(recording_header()) + "\n{broken\n", "line 2: not JSON"),
        (json.dumps(recording_header()) + '\n{"type": "Teleport"}\n', "line 2: unknown event"),
        (json.dumps(recording_header()) + '\n{"type": "Notice", "seq": 1}\n', "line 2: Notice:"),
    ],
)
def test_a_file_that_is_not_a_readable_recording_is_refused_clearly(
    tmp_path: Path, content: str, problem: str
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(RecordingError) as raised:
        read_recording(path)
    assert str(raised.value).startswith(str(path))
    assert problem in str(raised.value)
