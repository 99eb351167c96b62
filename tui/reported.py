"""What the user set going is shown when it fails: the app says what went wrong and goes on.

Textual ends the app when a worker raises; a worker that runs a user's action (export the
trace, start a conversation, answer a request …) is wrapped with `reported` instead, so an
ordinary error (a file that cannot be written, codex gone while it restarts) is a message on
the screen, never a crash.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Concatenate, ParamSpec, TypeVar

from textual.widget import Widget

from engine.errors import CodexDeckError
from tui.text import inert

P = ParamSpec("P")
Node = TypeVar("Node", bound=Widget)
"""A widget or screen (both can notify)."""
Action = Callable[Concatenate[Node, P], Awaitable[None]]


def reported(what: str) -> Callable[[Action[Node, P]], Action[Node, P]]:
    """Run the action; if it raises, notify `what` failed and why (the error's own words)."""

    def wrap(action: Action[Node, P]) -> Action[Node, P]:
        @functools.wraps(action)
        async def run(node: Node, /, *args: P.args, **kwargs: P.kwargs) -> None:
            try:
                await action(node, *args, **kwargs)
            except Exception as error:
                if not isinstance(error, EXPECTED):
                    node.log.error(what, error)
                node.notify(
                    inert(f"{what}: {why(error)}"), severity="error", timeout=15, markup=False
                )

        return run

    return wrap


EXPECTED = (CodexDeckError, OSError)
"""What an action may meet in ordinary use: codex's errors and refusals, and the system's."""


def why(error: Exception) -> str:
    """An error in words: an OS error's reason and file, codex-deck's own message, or, for
    anything else (a fault of codex-deck's), its kind and message."""
    if isinstance(error, OSError) and error.strerror:
        where = f" ({error.filename})" if error.filename else ""
        return f"{error.strerror}{where}"
    if isinstance(error, EXPECTED):
        return str(error) or type(error).__name__
    return f"a fault in codex-deck ({type(error).__name__}: {error})"
