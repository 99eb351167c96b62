"""In a real terminal (tmux): PageUp and PageDown page the conversation from the message box,
what is typed stays there, and what comes while the user reads above is not followed until
they are back at the end."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tests.tui.test_tmux_typing import flat
from tests.tui.tmux import COMMAND, Terminal, message_box, quit_app

FIRST = "count for me, the first"
LATER = "count for me, later"
ANSWERED = "That is all of it."


def send(terminal: Terminal, text: str) -> None:
    terminal.type("-l", text)
    terminal.wait_until(lambda: message_box(terminal.screen()) == text, repr(text))
    terminal.type("Enter")


def answered(terminal: Terminal, sent: str, last_words: str) -> bool:
    """The answer to `sent`, the latest message of that text, shows its last words."""
    screen = terminal.screen()
    at = screen.rfind(f"› {sent}")
    return at >= 0 and last_words in screen[at:]


def changed(terminal: Terminal, before: str) -> bool:
    return terminal.screen() != before


def test_page_keys_page_the_conversation_and_keep_what_is_typed(
    terminal: Terminal, isolated_settings: Path
) -> None:
    terminal.type(f"CODEX_DECK_CONFIG={isolated_settings} {COMMAND} --demo", "Enter")
    terminal.wait_for("offline demo")
    for sent, last_words in (
        (FIRST, "twenty"),
        ("show markdown", ANSWERED),
        ("markdown", ANSWERED),
    ):
        send(terminal, sent)
        terminal.wait_until(partial(answered, terminal, sent, last_words), f"{sent!r} answered")
    terminal.wait_until(lambda: FIRST not in terminal.screen(), "the first out of view")
    terminal.type("-l", "half a thought")
    terminal.wait_until(lambda: message_box(terminal.screen()) == "half a thought", "typed")

    for _ in range(5):  # a page at a time, as a person reads back
        if FIRST in terminal.screen():
            break
        before = terminal.screen()
        terminal.type("PageUp")
        terminal.wait_until(partial(changed, terminal, before), "a page up")
    assert FIRST in terminal.screen(), "paged back to the first message"
    assert flat(message_box(terminal.screen())) == flat("half a thought")

    terminal.type("C-u")  # the draft goes, the message that comes next is sent
    terminal.wait_until(lambda: "thought" not in message_box(terminal.screen()), "emptied")
    send(terminal, LATER)
    terminal.wait_for("new output below")
    assert FIRST in terminal.screen(), "what comes is not followed while the user reads above"

    for _ in range(10):
        if "new output below" not in terminal.screen():
            break
        before = terminal.screen()
        terminal.type("PageDown")
        terminal.wait_until(partial(changed, terminal, before), "a page down")
    terminal.wait_until(lambda: f"› {LATER}" in terminal.screen(), "back at the end")
    assert "new output below" not in terminal.screen()
    quit_app(terminal)
