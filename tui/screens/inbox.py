"""Every request waiting for the user, across conversations, sub-agents and hosts, oldest
first (alt+i, /inbox): where it comes from, what it asks, how long it has waited. Enter goes
to its card, where it is answered as always; nothing here answers anything."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from engine.events import ConversationInfo, InteractionInfo
from tui.entries import clipped
from tui.text import clock, inert
from tui.widgets.card import TITLES
from tui.widgets.conversation_list import requests

ASKED_CHARS = 90
"""What a request asks, cut to about one line."""


def asks(info: InteractionInfo) -> str:
    """What the request asks, in a line: the command, the files, the question."""
    if info.command:
        said = f"$ {info.command}"
    elif info.changes:
        said = ", ".join(change.path for change in info.changes)
    elif info.questions:
        said = " · ".join(question.question for question in info.questions)
    else:
        said = info.message or info.reason or info.server or ""
    return clipped(said, ASKED_CHARS)


def named(conversation: ConversationInfo) -> str:
    """A conversation as the user knows it: its title, and its host's name when it has one."""
    host = conversation.host
    return conversation.title if host is None else f"{conversation.title} on {host}"


def where(info: InteractionInfo, conversations: Mapping[str, ConversationInfo]) -> str:
    """The conversation (and host, and sub-agent) that asks."""
    conversation = conversations.get(info.conversation_id)
    said = named(conversation) if conversation is not None else info.conversation_id
    if info.sub_agent is not None:
        said += " · a sub-agent asks"
    return said


def oldest_first(pending: Sequence[InteractionInfo]) -> list[InteractionInfo]:
    """The requests in the order they were asked (those of an unknown time last)."""
    return sorted(pending, key=lambda info: info.asked_at or float("inf"))


class Inbox(ModalScreen[str | None]):
    """Enter on a request goes to its card (the id is returned); Esc goes back."""

    BINDINGS = [Binding("escape", "back", "Back", id="inbox.back")]

    DEFAULT_CSS = """
    Inbox { align: center middle; }
    Inbox > Vertical {
        width: 90%; max-width: 110; height: auto; max-height: 80%; border: round $warning;
        background: $surface; padding: 0 1;
    }
    Inbox OptionList { height: auto; max-height: 30; border: none; }
    Inbox .inbox-title { text-style: bold; }
    Inbox .inbox-keys { color: $text-muted; }
    """

    def __init__(
        self,
        pending: Sequence[InteractionInfo],
        conversations: Mapping[str, ConversationInfo],
        now: Callable[[], float],
    ) -> None:
        super().__init__()
        self._pending = oldest_first(pending)
        self._conversations = conversations
        self._now = now

    def compose(self) -> ComposeResult:
        count = len(self._pending)
        if not count:
            title = "Inbox: nothing waits for your answer"
        else:
            order = ", oldest first" if count > 1 else ""
            title = f"Inbox: {requests(count)} for your answer{order}"
        with Vertical():
            yield Static(title, classes="inbox-title", markup=False)
            yield OptionList(*self._options(), id="inbox-requests")
            yield Static(
                "enter goes to its card (answer there) · esc back",
                classes="inbox-keys",
                markup=False,
            )

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def _options(self) -> list[Option]:
        now = self._now()
        options = []
        for info in self._pending:
            waited = f"waited {clock(now - info.asked_at)}" if info.asked_at else ""
            head = f"⚠ {TITLES[info.kind]} [{info.id}] · {where(info, self._conversations)}"
            label = f"{inert(head)}  {waited}\n  {inert(asks(info))}".rstrip()
            options.append(Option(Content(label), id=info.id))  # not markup: `[`s as typed
        return options

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_back(self) -> None:
        self.dismiss(None)
