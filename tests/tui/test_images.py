"""Images in the app: a pasted image path is attached and shown as a chip above the composer,
sent with the next message; a file that is not an image is refused and the text stays; quitting
with one attached asks first."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual import events
from textual.widgets import Static

from engine.protocol import ImageGenerationItem
from engine.scripted_model import ScriptedModel
from tests.e2e.test_images import png
from tests.tui.conftest import Deck, transcript, until
from tests.tui.test_app import turn_markers
from tui.entries import describe_item
from tui.screens.confirm import ConfirmScreen
from tui.widgets.composer import Composer, image_path
from tui.widgets.message import UserMessage

pytestmark = pytest.mark.anyio


def strip_text(app_screen: object, selector: str) -> str:
    widget = app_screen.query_one(selector, Static)  # type: ignore[attr-defined]
    return str(widget.render()) if widget.display else ""


async def test_a_pasted_image_path_becomes_a_chip_and_goes_with_the_message(
    deck: Deck, workspace: Path, scripted_model: ScriptedModel
) -> None:
    (workspace / "shot.png").write_bytes(png())
    (workspace / "fake.png").write_text("words, not pixels")
    async with deck() as (app, pilot):
        composer = app.main.query_one(Composer)
        composer.text = "what is this? "
        composer.move_cursor(composer.document.end)
        composer.post_message(events.Paste("'fake.png'"))
        await until(pilot, lambda: strip_text(app.main, "#composer-note"), "the refusal shows")
        assert strip_text(app.main, "#composer-note").startswith(
            "Not attached: fake.png is not a PNG, JPEG, GIF or WebP image"
        )
        assert composer.text == "what is this? fake.png", "the text stays; the path is typed"
        assert strip_text(app.main, "#attachments") == ""

        composer.text = "what is this?"
        composer.post_message(events.Paste(f"file://{workspace}/shot.png"))
        await until(pilot, lambda: strip_text(app.main, "#attachments"), "the chip shows")
        assert strip_text(app.main, "#attachments").startswith("📎 [shot.png (PNG, ")
        assert composer.text == "what is this?"

        await pilot.press("enter")
        await until(pilot, lambda: turn_markers(app), "the turn ends")
        assert strip_text(app.main, "#attachments") == "", "the chip went with the message"
        (message,) = transcript(app).query(UserMessage)
        assert f"📎 {workspace}/shot.png" in str(message.render())
        (request,) = scripted_model.responses_requests()
        kinds = [
            part.get("type") for item in request.body["input"] for part in item.get("content", [])
        ]
        assert "input_image" in kinds


@pytest.mark.parametrize(
    ("pasted", "path"),
    [
        ("/tmp/a.png", "/tmp/a.png"),
        ("'/tmp/my shot.JPG' ", "/tmp/my shot.JPG"),
        ("file:///tmp/a.webp", "/tmp/a.webp"),
        ("/tmp/notes.txt", None),
        ("look at /tmp/a.png\nand this", None),
    ],
)
def test_only_a_paste_that_is_just_an_image_path_is_taken_as_one(
    pasted: str, path: str | None
) -> None:
    assert image_path(pasted) == path


def test_a_generated_image_is_listed_with_its_saved_path() -> None:
    item = ImageGenerationItem(
        id="ig1",
        status="completed",
        saved_path="/home/dev/.codex/images/cat.png",
        revised_prompt="a cat on a keyboard",
    )
    assert describe_item(item, "completed") == (
        "generated an image, saved to /home/dev/.codex/images/cat.png · completed\n"
        "  prompt: a cat on a keyboard"
    )
    unsaved = ImageGenerationItem(id="ig2", status="failed")
    assert describe_item(unsaved, "failed") == "generated an image, not saved · failed"


async def test_quitting_with_an_image_attached_asks_first_and_no_keeps_it(
    deck: Deck, workspace: Path
) -> None:
    (workspace / "shot.png").write_bytes(png())
    async with deck() as (app, pilot):
        composer = app.main.query_one(Composer)
        composer.post_message(events.Paste(f"{workspace}/shot.png"))
        await until(pilot, lambda: strip_text(app.main, "#attachments"), "the chip shows")
        await pilot.press("ctrl+q")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "it asks")
        question = " ".join(str(line.render()) for line in app.screen.query(Static))
        assert "1 image(s) wait to go with a message; quitting drops them." in question
        await pilot.press("n")
        await until(pilot, lambda: not isinstance(app.screen, ConfirmScreen), "n stays")
        assert app.is_running
        assert strip_text(app.main, "#attachments").startswith("📎 [shot.png")
