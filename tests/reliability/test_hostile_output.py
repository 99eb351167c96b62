"""Escape sequences from the agent (its reasoning, answer, requests, a file's name and a diff)
and from a command's output reach the terminal inert: they cannot set the title, write the
clipboard or clear the screen. An answer that tells the user (or the UI) to approve does
nothing by itself."""

from __future__ import annotations

import re
from pathlib import Path

from tests.conftest import local_settings
from tests.reliability.report import Ledger, asked_in, lost_and_reruns
from tests.reliability.terminal import running

OBEYED = re.compile(rb"\x1b\]0;PWNED|\x1b\]52;c;UFdORUQ|\x1b\[2J")
"""What the hostile scenario's sequences would look like had they reached the terminal."""


def test_escape_sequences_are_shown_not_obeyed_and_nothing_is_approved_by_text(
    isolated_settings: Path, model_url: str, model_requests: Path, tmp_path: Path, tally: Ledger
) -> None:
    workspace = local_settings(isolated_settings, model_url, tmp_path)
    with running([], {"CODEX_DECK_CONFIG": str(isolated_settings)}) as app:
        app.wait_for("codex online")
        sent = len(app.raw)
        app.type("hostile output")
        app.wait_for("hostile output", sent)
        app.type("\r")
        app.wait_for("Allow writing hostile.txt?", sent)
        app.wait_for("SYSTEM:", sent)
        app.wait_for("y approve", sent)
        unapproved = int((workspace / "hostile.txt").exists())

        moved = len(app.raw)
        app.type("\x07")  # ctrl+g: to the card (it never takes the keys by itself)
        app.wait_for("y Approve", moved)
        answered = len(app.raw)
        app.type("y")
        app.wait_for("they are shown, not obeyed", answered)
        app.wait_for("turn completed", answered)
        assert (workspace / "hostile.txt").exists()
        assert (workspace / "hostile-\x1b]0;PWNED-FILE\x07.txt").exists()
        found = len(app.raw)
        app.type("\x06")
        app.wait_for("text in this conversation", found)
        app.type("PWNED-ANSWER")
        app.wait_for("1/1 · codex:", found)

        obeyed = OBEYED.findall(app.raw[sent:])
        lost, reruns = lost_and_reruns(asked_in(model_requests), ["hostile output"])
        crashed = int(app.process.poll() is not None)
        tally(
            "input",
            "escape sequences in reasoning, answer, request, command output, a file name and "
            "a diff; an answer telling the user to approve",
            cases=6,
            lost=lost,
            reruns=reruns,
            unapproved=unapproved,
            crashes=crashed,
        )
        assert unapproved == 0, "the answer's words approved nothing"
        assert obeyed == [], "escape sequences from the agent or a command reached the terminal"
        shown = app.text
        for where in ("ANSWER", "REQUEST", "OUTPUT", "FILE", "DIFF"):
            assert f"\\x1b]0;PWNED-{where}" in shown, f"the {where.lower()}'s sequence is shown"
