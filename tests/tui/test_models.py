"""/model opens a picker of codex's models, then of the chosen one's reasoning efforts; what
is chosen shows in the status bar and goes with the next turn."""

from __future__ import annotations

import pytest
from textual.widgets import OptionList

from tests.tui.conftest import Deck, until
from tui.screens.models import ModelPicker
from tui.widgets.composer import Composer
from tui.widgets.status_bar import StatusBar

pytestmark = pytest.mark.anyio


async def test_the_model_picker_chooses_a_model_and_an_effort(deck: Deck) -> None:
    async with deck() as (app, pilot):
        app.main.query_one(Composer).text = "/model"
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ModelPicker), "the picker opens")
        options = app.screen.query_one(OptionList)
        ids = [options.get_option_at_index(i).id for i in range(options.option_count)]
        assert "gpt-5.5" in ids
        assert "codex-auto-review" not in ids
        options.highlighted = ids.index("gpt-5.5")
        await pilot.press("enter")
        efforts = [options.get_option_at_index(i).id for i in range(options.option_count)]
        assert efforts == ["low", "medium", "high", "xhigh"]
        assert options.highlighted == efforts.index("medium")
        options.highlighted = efforts.index("high")
        await pilot.press("enter")
        status = app.main.query_one(StatusBar)
        await until(pilot, lambda: "gpt-5.5 (high)" in str(status.render()), "the status shows it")
        assert app.main.query_one(Composer).text == ""


async def test_escape_goes_back_then_closes_and_changes_nothing(deck: Deck) -> None:
    async with deck() as (app, pilot):
        status = app.main.query_one(StatusBar)
        before = str(status.render())
        app.main.query_one(Composer).text = "/model"
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ModelPicker), "the picker opens")
        await pilot.press("enter")
        await pilot.press("escape")
        assert isinstance(app.screen, ModelPicker)
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, ModelPicker), "it closes")
        assert str(status.render()) == before
