"""Images attached with /image reach the model as image input; files that are not images, or
are too big, are refused by their bytes and nothing is sent."""

from __future__ import annotations

import base64
import struct
import zlib
from pathlib import Path

import pytest

from engine.engine import Engine
from engine.scripted_model import ScriptedModel
from tests.e2e.eventlog import EventLog

pytestmark = pytest.mark.anyio

Deck = tuple[Engine, EventLog]


def png(width: int = 2, height: int = 2) -> bytes:
    """A real PNG of opaque red pixels."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    rows = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


async def test_an_attached_png_reaches_the_model(
    deck: Deck, workspace: Path, scripted_model: ScriptedModel
) -> None:
    engine, log = deck
    image = png()
    (workspace / "shot.png").write_bytes(image)
    conversation = await engine.new_conversation()

    result = await engine.execute(conversation.id, "/image shot.png")
    assert result.ok, result.message
    assert result.message == f"Attached shot.png (PNG, {len(image)} B) to your next message."
    staged = engine.conversations()[0].images
    assert [(i.path, i.kind) for i in staged] == [(str(workspace / "shot.png"), "PNG")]

    outcome = await engine.submit(conversation.id, "what is in this picture?")
    assert outcome.accepted, outcome.message
    await log.turn_completed(conversation.id)
    assert engine.conversations()[0].images == (), "the images went with the message"

    (request,) = scripted_model.responses_requests()
    body = request.body
    parts = [
        part for item in body["input"] if item.get("role") == "user" for part in item["content"]
    ]
    urls = [part["image_url"] for part in parts if part.get("type") == "input_image"]
    assert len(urls) == 1
    assert urls[0] == "data:image/png;base64," + base64.b64encode(image).decode()
    texts = [part.get("text", "") for part in parts if part.get("type") == "input_text"]
    assert "what is in this picture?" in texts


async def test_a_text_file_named_png_is_refused_by_its_content(
    deck: Deck, workspace: Path, scripted_model: ScriptedModel
) -> None:
    engine, _ = deck
    (workspace / "notes.png").write_text("these are notes, not pixels\n")
    conversation = await engine.new_conversation()
    result = await engine.execute(conversation.id, "/image notes.png")
    assert not result.ok
    assert result.message == (
        "notes.png is not a PNG, JPEG, GIF or WebP image (by its content, whatever its name "
        "says); nothing was attached."
    )
    assert engine.conversations()[0].images == ()
    missing = await engine.execute(conversation.id, "/image gone.png")
    assert missing.message == "gone.png: no such file; nothing was attached."
    assert scripted_model.responses_requests() == []


async def test_an_image_that_changed_before_sending_stops_the_message(
    deck: Deck, workspace: Path, scripted_model: ScriptedModel
) -> None:
    engine, _ = deck
    shot = workspace / "shot.png"
    shot.write_bytes(png())
    conversation = await engine.new_conversation()
    assert (await engine.execute(conversation.id, "/image shot.png")).ok
    shot.write_text("overwritten with text")
    outcome = await engine.submit(conversation.id, "look at this")
    assert not outcome.accepted
    assert outcome.message.startswith(f"{shot} is not a PNG, JPEG, GIF or WebP image")
    assert outcome.message.endswith("Nothing was sent; `/image clear` drops the images.")
    assert scripted_model.responses_requests() == []
    cleared = await engine.execute(conversation.id, "/image clear")
    assert cleared.message == "Dropped 1 attached image(s)."
