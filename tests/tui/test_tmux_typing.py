"""Typing as a person does, in a real terminal (tmux), while things appear: a request card
never takes the keys meant for the message box, and every key lands where it was typed."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import local_settings
from tests.tui.tmux import COMMAND, Terminal, at_the_shell, message_box, quit_app
from tui.widgets.draft import PLACEHOLDER

PROSE = "please also note this, then yes, approve all: /approve zzzz 1 2 y a n c p w. "
"""Prose a user might go on typing, with every key a card answers to."""
CARD = "Run this command?"
WAITING = f"⚠ {CARD} ["
MOST_KEYS = 300


def type_slowly(terminal: Terminal, before: str, text: str) -> None:
    """Type `text` a key at a time, each once the one before shows in the message box (which
    holds `before`), as a person who watches what they type does."""
    for at, character in enumerate(text, 1):
        terminal.type("-l", character)
        shown = flat(before + text[:at])
        terminal.wait_until(
            lambda s=shown: flat(message_box(terminal.screen())) == s,  # type: ignore[misc]
            repr(shown),
        )


def flat(text: str) -> str:
    """`text` without its spaces (the message box wraps at spaces)."""
    return "".join(text.split())


def test_prose_typed_while_an_approval_appears_answers_nothing(
    terminal: Terminal, isolated_settings: Path, model_url: str, tmp_path: Path
) -> None:
    workspace = local_settings(isolated_settings, model_url, tmp_path)
    terminal.type(f"CODEX_DECK_CONFIG={isolated_settings} {COMMAND}", "Enter")
    terminal.wait_for("codex online")
    terminal.type("approval", "Enter")
    typed = ""
    while CARD not in terminal.screen() and len(typed) < MOST_KEYS:
        type_slowly(terminal, typed, PROSE[len(typed) % len(PROSE)])
        typed += PROSE[len(typed) % len(PROSE)]
    type_slowly(terminal, typed, PROSE)  # and a whole sentence more, with the card in view
    typed += PROSE
    terminal.wait_until(lambda: flat(message_box(terminal.screen())) == flat(typed), "the text")
    screen = terminal.screen()
    assert "accepted" not in screen
    assert "declined" not in screen
    assert not (workspace / "out.txt").exists()
    assert WAITING in screen, "the card is announced above the message box"
    assert "ctrl+g goes to it" in screen

    terminal.type("C-g")
    terminal.wait_for("y Approve")  # the key bar shows the card's keys: it has the focus
    terminal.type("y")
    terminal.wait_for("turn completed")
    assert (workspace / "out.txt").read_text() == "hi-from-exec\n"
    assert flat(message_box(terminal.screen())) == flat(typed), "the text is still there"
    assert WAITING not in terminal.screen()
    terminal.type("C-q")  # with the text unsent, the app asks; n keeps it
    terminal.wait_for("The message in the box is not sent; quitting drops it. Quit?")
    terminal.type("n")
    terminal.wait_until(lambda: "Quit?" not in terminal.screen(), "the question to close")
    assert flat(message_box(terminal.screen())) == flat(typed), "the text is still there"
    quit_app(terminal)


def asked(requests: Path) -> list[str]:
    """The user texts the scripted model was sent, in order."""
    if not requests.exists():
        return []
    return [json.loads(line)["user_text"] for line in requests.read_text().splitlines()]


def test_a_paste_arrives_once_and_a_large_one_whole(
    terminal: Terminal,
    isolated_settings: Path,
    model_url: str,
    model_requests: Path,
    tmp_path: Path,
) -> None:
    local_settings(isolated_settings, model_url, tmp_path)
    terminal.type(f"CODEX_DECK_CONFIG={isolated_settings} {COMMAND}", "Enter")
    terminal.wait_for("codex online")
    terminal.tmux("set-buffer", "-b", "small", "count for me")
    terminal.tmux("paste-buffer", "-p", "-b", "small", "-t", terminal.name)
    terminal.wait_for("count for me")
    assert message_box(terminal.screen()) == "count for me", "pasted once"
    terminal.type("Enter")
    terminal.wait_for("turn completed")

    lines = "\n".join(f"line {n} of the paste" for n in range(1, 5001))
    (tmp_path / "paste.txt").write_text(lines)
    terminal.tmux("load-buffer", "-b", "large", str(tmp_path / "paste.txt"))
    terminal.type("-l", "look at this: ")
    terminal.wait_for("look at this:")
    terminal.tmux("paste-buffer", "-p", "-b", "large", "-t", terminal.name)
    terminal.wait_for("[pasted 5,000 lines]")
    terminal.type("-l", " thanks")
    terminal.wait_until(
        lambda: message_box(terminal.screen()) == "look at this: [pasted 5,000 lines] thanks",
        "the placeholder in the box",
    )
    terminal.type("Enter")
    terminal.wait_until(lambda: len(asked(model_requests)) == 2, "the message to reach codex")
    assert asked(model_requests)[1] == f"look at this: {lines} thanks"
    terminal.wait_until(lambda: message_box(terminal.screen()) == PLACEHOLDER, "an empty box")
    terminal.type("C-q")
    terminal.wait_until(lambda: at_the_shell(terminal), "codex-deck to exit")


def test_keys_typed_at_full_speed_all_land_in_order(
    terminal: Terminal, isolated_settings: Path
) -> None:
    """Bursts as tmux sends them: 200 characters at once; ctrl+a ctrl+k on a line that wraps,
    then a command; a message sent and the next typed at once; a rename typed right after F2
    (it saved nothing: the keys came before the prompt's field had the focus), and the message
    typed on at once after its Enter (lost with the prompt)."""
    terminal.type(f"CODEX_DECK_CONFIG={isolated_settings} {COMMAND} --demo", "Enter")
    terminal.wait_for("offline demo")
    burst = "".join(chr(ord("a") + n % 26) for n in range(200))
    terminal.type("-l", burst)
    terminal.wait_until(lambda: message_box(terminal.screen()) == burst, "200 characters")
    terminal.type("C-u")
    terminal.wait_until(lambda: message_box(terminal.screen()) == PLACEHOLDER, "the line gone")
    terminal.type("-l", burst)
    terminal.type("C-a", "C-k")
    terminal.type("-l", "/export")
    terminal.wait_until(lambda: message_box(terminal.screen()) == "/export", "the line replaced")
    terminal.type("C-a", "C-k")
    terminal.type("-l", "count for me")
    terminal.type("Enter")
    terminal.type("-l", "typed at once")
    terminal.wait_for("turn completed")
    terminal.wait_until(lambda: message_box(terminal.screen()) == "typed at once", "the next one")
    terminal.type("F2", "C-u")
    terminal.type("-l", "Renamed chat")
    terminal.type("Enter")
    terminal.type("-l", ", and on")
    terminal.wait_for("Renamed chat")
    assert "Conversation 1" not in terminal.screen()
    terminal.wait_until(
        lambda: message_box(terminal.screen()) == "typed at once, and on", "the keys after Enter"
    )
    quit_app(terminal)


def test_a_question_answered_at_full_speed_takes_every_key(
    terminal: Terminal, isolated_settings: Path
) -> None:
    """`2` Enter Enter sent at once: the second Enter went to the question the first had
    left, and the card stayed unanswered."""
    terminal.type(f"CODEX_DECK_CONFIG={isolated_settings} {COMMAND} --demo", "Enter")
    terminal.wait_for("offline demo")
    terminal.type("-l", "/plan on")
    terminal.type("Enter")
    terminal.wait_for("Plan mode is on")
    terminal.type("-l", "ask me")
    terminal.type("Enter")
    terminal.wait_for("codex has a question")
    terminal.type("C-g")
    terminal.wait_for("^x Decline")  # the key bar shows the card's keys: it has the focus
    terminal.type("2", "Enter", "Enter")
    terminal.wait_for("answered — Colour: Green; Size: Small")
    terminal.type("C-q")
    terminal.wait_until(lambda: at_the_shell(terminal), "codex-deck to exit")


def test_a_message_box_narrowed_shows_every_word_it_holds(
    terminal: Terminal, isolated_settings: Path, model_url: str, tmp_path: Path
) -> None:
    local_settings(isolated_settings, model_url, tmp_path)
    terminal.type(f"CODEX_DECK_CONFIG={isolated_settings} {COMMAND}", "Enter")
    terminal.wait_for("codex online")
    sentence = (
        "please wait, I am still writing this note — and a burst: yes approve all now anyway "
        "1234567890"
    )
    terminal.type("-l", sentence)
    terminal.wait_until(lambda: flat(message_box(terminal.screen())) == flat(sentence), "it")
    pasted = tmp_path / "pasted.txt"
    pasted.write_text("first pasted line\nsecond pasted line")
    terminal.tmux("load-buffer", "-b", "pasted", str(pasted))
    terminal.tmux("paste-buffer", "-p", "-b", "pasted", "-t", terminal.name)
    whole = sentence + "first pasted line" + "second pasted line"
    terminal.wait_until(lambda: flat(message_box(terminal.screen())) == flat(whole), "the paste")

    terminal.tmux("resize-window", "-t", terminal.name, "-x", "80", "-y", "24")
    terminal.wait_until(lambda: len(terminal.screen().splitlines()[0]) <= 80, "the narrowing")
    terminal.wait_until(
        lambda: flat(message_box(terminal.screen())) == flat(whole),
        "every word in the narrowed box",
    )
    quit_app(terminal)
