"""A form an MCP server asks to have filled (or a URL it asks the user to open)."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Checkbox, Input, Select, Static

from engine import Approve, Cancel, Decline, FormField, Reply, form_fields, form_problems
from tui.text import inert
from tui.widgets.card import InteractionCard
from tui.widgets.ordered import OrderedInput


class FormCard(InteractionCard):
    """ctrl+s sends the form (checked first), ctrl+x declines, ctrl+k cancels. For a URL: y
    after opening it, n declines."""

    BINDINGS = [
        Binding("ctrl+s", "send", "Send", id="form.send"),
        Binding("ctrl+x", "decline", "Decline", id="form.decline"),
        Binding("ctrl+k", "cancel", "Cancel", id="form.cancel"),
        Binding("y", "open_url", "Opened", id="form.opened", show=False),
        Binding("n", "decline_url", "Decline", id="form.decline_url", show=False),
    ]

    DEFAULT_CSS = """
    FormCard .form-label { margin: 1 0 0 0; }
    FormCard Input, FormCard Input:focus, FormCard Select, FormCard Checkbox {
        margin: 0; width: 100%;
    }
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields = form_fields(self.info.requested_schema)

    def compose(self) -> ComposeResult:
        info = self.info
        yield self.title_line()
        if info.server:
            yield Static(Text(f"from the MCP server {inert(info.server)}"), classes="card-label")
        if info.message:
            yield Static(Text(inert(info.message)))
        if info.url:
            yield Static(Text(f"open: {inert(info.url)}"), markup=False)
        for field in self.fields:
            star = " *" if field.required else ""
            about = f" — {field.description}" if field.description else ""
            yield Static(Text(inert(field.title + star + about)), classes="form-label")
            yield _widget(field)
        yield Static("", classes="card-problem", markup=False)
        if info.url and not self.fields:
            keys = "ctrl+g goes here, then y when you have opened it · n declines · esc back"
        else:
            keys = (
                "ctrl+g goes here, then ctrl+s sends · ctrl+x declines · ctrl+k cancels · "
                "esc back   (* required)"
            )
        yield self.keys_line(keys)

    def values(self) -> dict[str, Any]:
        """The filled-in values, typed as the schema asks (empty fields left out)."""
        values: dict[str, Any] = {}
        for field in self.fields:
            widget = self.query_one(f"#field-{field.name}")
            if isinstance(widget, Checkbox):
                values[field.name] = widget.value
            elif isinstance(widget, Select):
                if isinstance(widget.value, str):
                    values[field.name] = widget.value
            elif isinstance(widget, Input) and widget.value.strip():
                values[field.name] = _typed(field, widget.value.strip())
        return values

    def action_send(self) -> None:
        values = self.values()
        problems = form_problems(self.info.requested_schema, values)
        self.query_one(".card-problem", Static).update("; ".join(problems))
        if not problems:
            self.answer(Reply(values))

    def action_decline(self) -> None:
        self.answer(Decline())

    def action_cancel(self) -> None:
        self.answer(Cancel())

    def action_open_url(self) -> None:
        if self.info.url and not self.fields:
            self.answer(Approve())

    def action_decline_url(self) -> None:
        if self.info.url and not self.fields:
            self.answer(Decline())


def _widget(field: FormField) -> Input | Checkbox | Select[str]:
    name = f"field-{field.name}"
    if field.kind == "boolean":
        return Checkbox(field.title, value=bool(field.default), id=name)
    if field.kind == "choice":
        options = [(label, value) for value, label in field.choices]
        return Select(options, id=name, value=field.default or Select.NULL)
    kind = {"number": "number", "integer": "integer"}.get(field.kind, "text")
    default = "" if field.default is None else str(field.default)
    return OrderedInput(value=default, type=kind, id=name)  # type: ignore[arg-type]


def _typed(field: FormField, text: str) -> Any:
    try:
        if field.kind == "integer":
            return int(text)
        if field.kind == "number":
            return float(text)
    except ValueError:
        return text
    return text
