"""How each slash command's words after its name are read: a function per kind of argument,
each raising ValueError (with what is wrong) for words that do not fit."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any, Literal

from engine.commands.kinds import (
    Command,
    Diff,
    Export,
    Goal,
    Image,
    Model,
    New,
    Plan,
    Policy,
    Respond,
    Review,
    SideAction,
    Stop,
)
from engine.conversations.interactions import Answer, Approve, ApproveScope, Cancel, Reply
from engine.protocol import ApprovalPolicy, SandboxMode

REPLACE = "--replace"
"""/export writes over a file that is there only when told so."""


def no_arguments(command: Command) -> Callable[[str], Command]:
    def parse(rest: str) -> Command:
        if rest:
            raise ValueError("takes no arguments")
        return command

    return parse


def needs_text(make: Callable[[str], Command]) -> Callable[[str], Command]:
    def parse(rest: str) -> Command:
        if not rest:
            raise ValueError("needs text")
        return make(rest)

    return parse


def interaction_and(answer: Callable[[str], Answer]) -> Callable[[str], Command]:
    def parse(rest: str) -> Command:
        reference, _, more = rest.partition(" ")
        if not reference:
            raise ValueError("needs an interaction id")
        return Respond(reference, answer(more.strip()))

    return parse


def approve(rest: str) -> Answer:
    scopes: dict[str, ApproveScope] = {
        "": "once",
        "session": "session",
        "rule": "rule",
        "network": "network",
    }
    scope = scopes.get(rest)
    if scope is None:
        raise ValueError(f"takes `session`, `rule` or `network`, not {rest!r}")
    return Approve(scope)


def new(rest: str) -> New:
    """`[@HOST] [TITLE]`."""
    if not rest.startswith("@"):
        return New(rest or None)
    host, _, title = rest[1:].partition(" ")
    if not host:
        raise ValueError("needs a host's name after @")
    return New(title.strip() or None, host)


def plain(answer: Answer) -> Callable[[str], Answer]:
    def parse(rest: str) -> Answer:
        if rest:
            raise ValueError("takes only an interaction id")
        return answer

    return parse


def reply(rest: str) -> Answer:
    if not rest:
        raise ValueError("needs an answer after the id")
    value: Any = rest
    if rest[0] in "{[":
        try:
            value = json.loads(rest)
        except ValueError:
            value = rest
    return Reply(value)


def plan(rest: str) -> Command:
    choices = {"": None, "on": True, "off": False}
    if rest not in choices:
        raise ValueError(f"takes `on` or `off`, not {rest!r}")
    return Plan(choices[rest])


APPROVAL_POLICIES: dict[str, ApprovalPolicy] = {
    "untrusted": "untrusted",
    "on-request": "on-request",
    "never": "never",
}
SANDBOXES: dict[str, SandboxMode] = {
    "read-only": "read-only",
    "workspace-write": "workspace-write",
    "danger-full-access": "danger-full-access",
}


def approvals(rest: str) -> Command:
    if rest not in APPROVAL_POLICIES:
        raise ValueError(f"takes {', '.join(APPROVAL_POLICIES)}, not {rest!r}")
    return Policy(approvals=APPROVAL_POLICIES[rest])


def export_of(rest: str) -> Command:
    """`[--replace] [PATH]` (`~` is the user's home)."""
    words = rest.split(maxsplit=1)
    replace = bool(words) and words[0] == REPLACE
    path = (words[1] if len(words) > 1 else "") if replace else rest
    return Export(os.path.expanduser(path) if path else None, replace=replace)


def sandbox(rest: str) -> Command:
    if rest not in SANDBOXES:
        raise ValueError(f"takes {', '.join(SANDBOXES)}, not {rest!r}")
    return Policy(sandbox=SANDBOXES[rest])


def side_action(action: Literal["close", "promote", "bring"]) -> Callable[[str], Command]:
    def parse(rest: str) -> Command:
        if " " in rest:
            raise ValueError("takes at most a side chat id")
        if action == "bring" and rest == "drop":
            return SideAction("drop", None)
        return SideAction(action, rest or None)

    return parse


def model(rest: str) -> Command:
    words = rest.split()
    if not words:
        return Model(None)
    if words == ["all"]:
        return Model(None, hidden=True)
    if len(words) > 2:
        raise ValueError("takes a model and, optionally, a reasoning effort")
    return Model(words[0], words[1] if len(words) == 2 else None)


def image(rest: str) -> Command:
    if rest == "clear":
        return Image(None, clear=True)
    if len(rest) > 1 and rest[0] == rest[-1] and rest[0] in "'\"":
        rest = rest[1:-1]  # a path pasted with quotes around it
    return Image(rest or None)


def diff(rest: str) -> Command:
    if rest == "":
        return Diff("tree")
    if rest == "turn":
        return Diff("turn")
    raise ValueError(f"takes `turn` or nothing, not {rest!r}")


def review(rest: str) -> Command:
    how, _, what = rest.partition(" ")
    what = what.strip()
    if not rest:
        return Review()
    if how == "base":
        if not what:
            raise ValueError("base needs the branch to compare with")
        return Review("base", what)
    if how == "commit":
        if not what:
            raise ValueError("commit needs the commit's id")
        return Review("commit", what)
    return Review("custom", rest)


def goal(rest: str) -> Command:
    if not rest:
        return Goal("show")
    if rest == "clear":
        return Goal("clear")
    if rest == "pause":
        return Goal("pause")
    if rest == "resume":
        return Goal("resume")
    return Goal("set", rest)


def cancel(rest: str) -> Command:
    return interaction_and(plain(Cancel()))(rest) if rest else Stop()
