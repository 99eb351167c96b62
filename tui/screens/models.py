"""Choosing a model and its reasoning effort from what codex offers."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from engine.protocol import ModelInfo
from tui.text import inert

Choice = tuple[str, str | None]


class ModelPicker(ModalScreen[Choice | None]):
    """Enter on a model, then on an effort (its default is highlighted); Esc goes back."""

    BINDINGS = [Binding("escape", "back", "Back", id="model.back")]

    DEFAULT_CSS = """
    ModelPicker { align: center middle; }
    ModelPicker > Vertical {
        width: 80; height: auto; max-height: 80%; border: round $accent; background: $surface;
        padding: 0 1;
    }
    ModelPicker OptionList { height: auto; max-height: 24; border: none; }
    ModelPicker .picker-title { text-style: bold; }
    ModelPicker .picker-keys { color: $text-muted; }
    """

    def __init__(self, models: list[ModelInfo], current: str | None) -> None:
        super().__init__()
        self._models = {model.model: model for model in models}
        self._current = current
        self._chosen: ModelInfo | None = None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Model", classes="picker-title", id="picker-title")
            yield OptionList(*self._model_options(), id="picker-options")
            yield Static("enter choose · esc back", classes="picker-keys")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        if self._current in self._models:
            options.highlighted = options.get_option_index(self._current)
        options.focus()

    def _model_options(self) -> list[Option]:
        options = []
        for model in self._models.values():
            marks = " · in use" if model.model == self._current else ""
            marks += " · default" if model.is_default else ""
            name = inert(model.display_name or model.model)
            label = f"{name}{marks}\n  {inert(model.description)}".rstrip()
            options.append(Option(label, id=model.model))
        return options

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        picked = event.option.id or ""
        if self._chosen is None:
            self._chosen = self._models[picked]
            efforts = self._chosen.supported_reasoning_efforts
            if not efforts:
                self.dismiss((self._chosen.model, None))
                return
            options = self.query_one(OptionList)
            options.clear_options()
            options.add_options(
                Option(f"{e.reasoning_effort}  {e.description}".rstrip(), id=e.reasoning_effort)
                for e in efforts
            )
            default = self._chosen.default_reasoning_effort
            if default in [e.reasoning_effort for e in efforts]:
                options.highlighted = options.get_option_index(default)
            self.query_one("#picker-title", Static).update(
                f"Reasoning effort for {self._chosen.model}"
            )
            return
        self.dismiss((self._chosen.model, picked))

    def action_back(self) -> None:
        if self._chosen is None:
            self.dismiss(None)
            return
        self._chosen = None
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options(self._model_options())
        self.query_one("#picker-title", Static).update("Model")
