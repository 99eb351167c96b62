"""A yes/no question before something that cannot be undone, and the questions asked with
it: before quitting loses something, and before running without the store."""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from engine.errors import StoreError
from tui.widgets.conversation_list import requests

if TYPE_CHECKING:
    from engine.frontend import Backend


class ConfirmScreen(ModalScreen[bool]):
    BINDINGS = [
        Binding("y", "answer(True)", "Yes", id="confirm.yes"),
        Binding("n,escape", "answer(False)", "No", id="confirm.no"),
    ]

    DEFAULT_CSS = """
    ConfirmScreen { align: center middle; }
    ConfirmScreen > Vertical {
        width: 64; height: auto; border: round $warning; background: $surface; padding: 0 1;
    }
    ConfirmScreen .confirm-keys { color: $text-muted; margin: 1 0 0 0; }
    """

    def __init__(self, question: str) -> None:
        super().__init__()
        self._question = question

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self._question, markup=False)
            yield Static("y yes · n no", classes="confirm-keys", markup=False)

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


def quitting_loses(
    backend: Backend | None, typed: str, attached: bool, shared: Collection[str] = ()
) -> list[str]:
    """What quitting now would lose, in words: requests it declines (none on a shared codex,
    attached to, or a listening host among `shared`: they wait there for the next client),
    the message written and not sent, images waiting to go with a message."""
    lost = []
    pending = backend.pending_interactions() if backend is not None else []
    if pending and shared and backend is not None:
        hosts = {info.id: info.host for info in backend.conversations()}
        pending = [p for p in pending if hosts.get(p.conversation_id) not in shared]
    if pending and not attached:
        them = "it" if len(pending) == 1 else "them"
        lost.append(f"{requests(len(pending))} for your answer; quitting declines {them}.")
    if typed.strip():
        lost.append("The message in the box is not sent; quitting drops it.")
    images = sum(len(info.images) for info in backend.conversations()) if backend else 0
    if images:
        lost.append(f"{images} image(s) wait to go with a message; quitting drops them.")
    brought = sum(len(info.context) for info in backend.conversations()) if backend else 0
    if brought:
        lost.append(
            f"{brought} side answer(s) brought in wait to go with a message; quitting drops them."
        )
    return lost


def without_store(error: StoreError) -> str:
    """The question when the store cannot be used."""
    return (
        f"codex-deck's store cannot be used: {error}. Run without it? Nothing is brought back, "
        "and nothing of this session is kept after you quit."
    )
