"""The slash-command parser every front end shares."""

from __future__ import annotations

import pytest

from engine.commands.kinds import (
    Archive,
    CommandError,
    Compact,
    Diff,
    Goal,
    Help,
    Init,
    Mcp,
    New,
    Quit,
    Rename,
    Reset,
    Respond,
    Review,
    Say,
    Session,
    Shell,
    Side,
    SideAction,
    Stop,
)
from engine.commands.parse import help_text, parse
from engine.conversations.interactions import Approve, Cancel, Decline, Reply


@pytest.mark.parametrize(
    ("line", "command"),
    [
        ("fix the tests", Say("fix the tests")),
        ("  keep  spacing  ", Say("  keep  spacing  ")),
        ("//etc/hosts is odd", Say("/etc/hosts is odd")),
        ("/stop", Stop()),
        ("/STOP", Stop()),
        ("/cancel", Stop()),
        ("/cancel ab12", Respond("ab12", Cancel())),
        ("/reset", Reset()),
        ("/session", Session()),
        ("/new", New(None)),
        ("/new refactor auth", New("refactor auth")),
        ("/rename better name", Rename("better name")),
        ("/archive", Archive()),
        ("/help", Help()),
        ("/quit", Quit()),
        ("/exit", Quit()),
        ("/queue after this", Say("after this", queue=True)),
        ("/approve ab12", Respond("ab12", Approve())),
        ("/approve ab12 session", Respond("ab12", Approve("session"))),
        ("/decline ab", Respond("ab", Decline())),
        ("/respond q1 use the second option", Respond("q1", Reply("use the second option"))),
        ('/respond q1 {"a": "yes"}', Respond("q1", Reply({"a": "yes"}))),
        ("/respond q1 {not json", Respond("q1", Reply("{not json"))),
        ("/side why did it fail?", Side("why did it fail?")),
        ("/side", Side("")),
        ("/newside and the other file?", Side("and the other file?", new=True)),
        ("/closeside", SideAction("close", None)),
        ("/closeside s2", SideAction("close", "s2")),
        ("/promote s1", SideAction("promote", "s1")),
        ("/compact", Compact()),
        ("/diff", Diff("tree")),
        ("/diff turn", Diff("turn")),
        ("/mcp", Mcp()),
        ("/review", Review()),
        ("/review base main", Review("base", "main")),
        ("/review commit 1a2b3c", Review("commit", "1a2b3c")),
        ("/review look for races", Review("custom", "look for races")),
        ("/status", Session()),
        ("/goal", Goal("show")),
        ("/goal clear", Goal("clear")),
        ("/goal pause", Goal("pause")),
        ("/goal resume", Goal("resume")),
        ("/goal fix the flaky test", Goal("set", "fix the flaky test")),
        ("/init", Init()),
        ("!git status --short", Shell("git status --short")),
        ("  ! ls | wc -l  ", Shell("ls | wc -l")),
        ("!", Shell("")),
        ("!!important, not a command", Say("!important, not a command")),
    ],
)
def test_lines_parse(line: str, command: object) -> None:
    assert parse(line) == command


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("/frobnicate", "unknown command /frobnicate; /help lists the commands"),
        ("/stop now", "/stop takes no arguments; usage: /stop"),
        ("/approve", "/approve needs an interaction id; usage: /approve ID [session|rule|network]"),
        (
            "/approve ab12 forever",
            "/approve takes `session`, `rule` or `network`, not 'forever'; "
            "usage: /approve ID [session|rule|network]",
        ),
        ("/decline ab12 because", "/decline takes only an interaction id; usage: /decline ID"),
        ("/respond ab12", "/respond needs an answer after the id; usage: /respond ID TEXT|JSON"),
        (
            "/revert last",
            "/revert takes a number: 2 is the change before the latest; usage: /revert [N]",
        ),
        (
            "/rules drop 1",
            "/rules takes nothing, or remove N (N as it lists them); usage: /rules [remove N]",
        ),
        ("/rename", "/rename needs text; usage: /rename TITLE"),
        ("/queue", "/queue needs text; usage: /queue TEXT"),
        ("/newside", "/newside needs text; usage: /newside QUESTION"),
        ("/promote s1 s2", "/promote takes at most a side chat id; usage: /promote [ID]"),
        ("/diff HEAD~1", "/diff takes `turn` or nothing, not 'HEAD~1'; usage: /diff [turn]"),
        ("/compact now", "/compact takes no arguments; usage: /compact"),
    ],
)
def test_bad_lines_name_the_command_and_its_usage(line: str, message: str) -> None:
    with pytest.raises(CommandError) as caught:
        parse(line)
    assert str(caught.value) == message


def test_help_lists_every_command() -> None:
    text = help_text()
    for name in ("stop", "cancel", "reset", "session", "new", "approve", "decline", "respond"):
        assert f"/{name}" in text
