"""The slash commands, parsed the same way for every front end.

`parse(line)` turns a line of input into a command; `!command` is the user's own shell
command; plain text (and `//text` or `!!text`, for text that starts with a slash or a `!`)
becomes `Say`. A line that is not a valid command raises `CommandError`
naming the command and its usage — the text is never sent to the model.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from engine.commands.kinds import (
    AccountCommand,
    Archive,
    Command,
    CommandError,
    Compact,
    Continue,
    Diff,
    Export,
    Goal,
    Help,
    Image,
    Init,
    Mcp,
    Model,
    New,
    OpenThread,
    Output,
    Plan,
    Policy,
    Provider,
    Quit,
    Rename,
    Resend,
    Reset,
    Respond,
    Review,
    Say,
    Session,
    Shell,
    Side,
    SideAction,
    Stop,
    Threads,
    Unarchive,
)
from engine.conversations.interactions import Answer, Approve, ApproveScope, Cancel, Decline, Reply
from engine.protocol import ApprovalPolicy, SandboxMode


@dataclass(frozen=True, slots=True)
class Usage:
    name: str
    arguments: str
    summary: str
    parse: Callable[[str], Command]

    @property
    def line(self) -> str:
        return f"/{self.name}{' ' + self.arguments if self.arguments else ''}"


def _no_arguments(command: Command) -> Callable[[str], Command]:
    def parse(rest: str) -> Command:
        if rest:
            raise ValueError("takes no arguments")
        return command

    return parse


def _needs_text(make: Callable[[str], Command]) -> Callable[[str], Command]:
    def parse(rest: str) -> Command:
        if not rest:
            raise ValueError("needs text")
        return make(rest)

    return parse


def _interaction_and(answer: Callable[[str], Answer]) -> Callable[[str], Command]:
    def parse(rest: str) -> Command:
        reference, _, more = rest.partition(" ")
        if not reference:
            raise ValueError("needs an interaction id")
        return Respond(reference, answer(more.strip()))

    return parse


def _approve(rest: str) -> Answer:
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


def _plain(answer: Answer) -> Callable[[str], Answer]:
    def parse(rest: str) -> Answer:
        if rest:
            raise ValueError("takes only an interaction id")
        return answer

    return parse


def _reply(rest: str) -> Answer:
    if not rest:
        raise ValueError("needs an answer after the id")
    value: Any = rest
    if rest[0] in "{[":
        try:
            value = json.loads(rest)
        except ValueError:
            value = rest
    return Reply(value)


def _plan(rest: str) -> Command:
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


def _approvals(rest: str) -> Command:
    if rest not in APPROVAL_POLICIES:
        raise ValueError(f"takes {', '.join(APPROVAL_POLICIES)}, not {rest!r}")
    return Policy(approvals=APPROVAL_POLICIES[rest])


def _sandbox(rest: str) -> Command:
    if rest not in SANDBOXES:
        raise ValueError(f"takes {', '.join(SANDBOXES)}, not {rest!r}")
    return Policy(sandbox=SANDBOXES[rest])


def _side_action(action: Literal["close", "promote"]) -> Callable[[str], Command]:
    def parse(rest: str) -> Command:
        if " " in rest:
            raise ValueError("takes at most a side chat id")
        return SideAction(action, rest or None)

    return parse


def _model(rest: str) -> Command:
    words = rest.split()
    if not words:
        return Model(None)
    if words == ["all"]:
        return Model(None, hidden=True)
    if len(words) > 2:
        raise ValueError("takes a model and, optionally, a reasoning effort")
    return Model(words[0], words[1] if len(words) == 2 else None)


def _image(rest: str) -> Command:
    if rest == "clear":
        return Image(None, clear=True)
    if len(rest) > 1 and rest[0] == rest[-1] and rest[0] in "'\"":
        rest = rest[1:-1]  # a path pasted with quotes around it
    return Image(rest or None)


def _diff(rest: str) -> Command:
    if rest == "":
        return Diff("tree")
    if rest == "turn":
        return Diff("turn")
    raise ValueError(f"takes `turn` or nothing, not {rest!r}")


def _review(rest: str) -> Command:
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


def _goal(rest: str) -> Command:
    if not rest:
        return Goal("show")
    if rest == "clear":
        return Goal("clear")
    if rest == "pause":
        return Goal("pause")
    if rest == "resume":
        return Goal("resume")
    return Goal("set", rest)


def _cancel(rest: str) -> Command:
    return _interaction_and(_plain(Cancel()))(rest) if rest else Stop()


COMMANDS: tuple[Usage, ...] = (
    Usage("stop", "", "stop the running turn (Esc); queued messages wait", _no_arguments(Stop())),
    Usage(
        "cancel",
        "[ID]",
        "with an id: refuse that approval and end the turn; without: /stop",
        _cancel,
    ),
    Usage(
        "reset",
        "",
        "stop, drop the queue and start a new Codex thread (generation + 1)",
        _no_arguments(Reset()),
    ),
    Usage(
        "session", "", "ids, thread, model, sandbox, approvals, tokens", _no_arguments(Session())
    ),
    Usage(
        "status",
        "",
        "the same as /session (the usage limits too, as codex last said them)",
        _no_arguments(Session()),
    ),
    Usage(
        "compact",
        "",
        "have codex summarise the history into a shorter one, to free the context",
        _no_arguments(Compact()),
    ),
    Usage(
        "goal",
        "[OBJECTIVE|clear|pause|resume]",
        "what codex works toward, by itself, until it is done; alone: show it",
        _goal,
    ),
    Usage(
        "diff",
        "[turn]",
        "the working tree's changes against HEAD (git), with a file list; turn: the latest turn's",
        _diff,
    ),
    Usage(
        "review",
        "[base BRANCH|commit SHA|INSTRUCTIONS]",
        "codex reviews the uncommitted changes (or a branch, a commit, as you say): findings",
        _review,
    ),
    Usage(
        "mcp",
        "",
        "the MCP servers codex has (its config's), how each is, and their tools",
        _no_arguments(Mcp()),
    ),
    Usage(
        "init",
        "",
        "have codex write an AGENTS.md for this directory (never over one that is there)",
        _no_arguments(Init()),
    ),
    Usage(
        "output",
        "",
        "the latest command's whole output, in the pager (the screen keeps its last part)",
        _no_arguments(Output()),
    ),
    Usage(
        "continue",
        "",
        "run the queued messages that wait (after /stop or a restart)",
        _no_arguments(Continue()),
    ),
    Usage(
        "resend",
        "",
        "send once more the message whose outcome is unknown (after a crash)",
        _no_arguments(Resend()),
    ),
    Usage("new", "[TITLE]", "start a new conversation", lambda rest: New(rest or None)),
    Usage(
        "model",
        "[NAME [EFFORT]|all]",
        "choose the model and reasoning effort from the next turn; alone: list them",
        _model,
    ),
    Usage(
        "provider",
        "[NAME]",
        "move this conversation to a [providers.NAME] (a fork keeps its history); alone: list",
        lambda rest: Provider(rest or None),
    ),
    Usage(
        "image",
        "[PATH|clear]",
        "attach a PNG/JPEG/GIF/WebP to the next message; alone: list; clear: drop them",
        _image,
    ),
    Usage(
        "export",
        "[PATH]",
        "write the conversation as Markdown (secrets redacted)",
        lambda rest: Export(rest or None),
    ),
    Usage("account", "", "who codex is signed in as", _no_arguments(AccountCommand("account"))),
    Usage(
        "login",
        "",
        "sign in: API key (masked), ChatGPT device code, or the offline demo",
        _no_arguments(AccountCommand("login")),
    ),
    Usage("logout", "", "sign codex out", _no_arguments(AccountCommand("logout"))),
    Usage(
        "threads",
        "",
        "list codex's threads made elsewhere (Codex CLI, IDE) in this CODEX_HOME",
        _no_arguments(Threads()),
    ),
    Usage(
        "open",
        "THREAD_ID",
        "make one of codex's threads a conversation here",
        _needs_text(OpenThread),
    ),
    Usage("rename", "TITLE", "rename this conversation", _needs_text(Rename)),
    Usage("archive", "", "archive this conversation", _no_arguments(Archive())),
    Usage(
        "unarchive",
        "[ID]",
        "bring back an archived conversation; alone: list them",
        lambda rest: Unarchive(rest or None),
    ),
    Usage(
        "queue",
        "TEXT",
        "send TEXT after the running turn",
        _needs_text(lambda text: Say(text, queue=True)),
    ),
    Usage(
        "approve",
        "ID [session|rule|network]",
        "accept; for the session; or save the rule codex offers",
        _interaction_and(_approve),
    ),
    Usage("decline", "ID", "refuse an approval or question", _interaction_and(_plain(Decline()))),
    Usage("respond", "ID TEXT|JSON", "answer a question or form", _interaction_and(_reply)),
    Usage("plan", "[on|off]", "codex's plan mode: it plans and may ask you questions", _plan),
    Usage(
        "approvals",
        "untrusted|on-request|never",
        "when codex asks before acting, from the next turn",
        _approvals,
    ),
    Usage(
        "sandbox",
        "read-only|workspace-write|danger-full-access",
        "what commands may touch, from the next turn",
        _sandbox,
    ),
    Usage(
        "side",
        "[QUESTION]",
        "ask aside (a throwaway fork; the conversation never sees it); alone: list side chats",
        lambda rest: Side(rest),
    ),
    Usage(
        "newside",
        "QUESTION",
        "ask in a new side chat, keeping the others",
        _needs_text(lambda text: Side(text, new=True)),
    ),
    Usage("closeside", "[ID]", "close a side chat (its codex process ends)", _side_action("close")),
    Usage(
        "promote",
        "[ID]",
        "keep a side chat's fork as a new conversation (without the side answers)",
        _side_action("promote"),
    ),
    Usage("help", "", "list the commands", _no_arguments(Help())),
    Usage(
        "quit",
        "",
        "close codex-deck (ctrl+q): it asks first while a request waits for an answer",
        _no_arguments(Quit()),
    ),
    Usage("exit", "", "the same as /quit", _no_arguments(Quit())),
)

_BY_NAME = {usage.name: usage for usage in COMMANDS}


def parse(line: str) -> Command:
    """Read one line of input.

    Raises:
        CommandError: an unknown command, or a command used wrongly (with its usage).
    """
    text = line.strip()
    if text.startswith(("//", "!!")):
        return Say(text[1:])
    if text.startswith("!"):
        return Shell(text[1:].strip())
    if not text.startswith("/"):
        return Say(line)
    name, _, rest = text[1:].partition(" ")
    usage = _BY_NAME.get(name.lower())
    if usage is None:
        raise CommandError(f"unknown command /{name}; /help lists the commands")
    try:
        return usage.parse(rest.strip())
    except ValueError as error:
        raise CommandError(f"/{usage.name} {error}; usage: {usage.line}") from None


def parsed(line: str) -> Command | None:
    """What `parse` makes of a line; None when it is wrong (running it says what is wrong)."""
    try:
        return parse(line)
    except CommandError:
        return None


def help_text() -> str:
    width = max(len(usage.line) for usage in COMMANDS)
    lines = [f"{usage.line:<{width}}  {usage.summary}" for usage in COMMANDS]
    lines.append(f"{'!COMMAND':<{width}}  run your shell command here (codex sees its output)")
    lines.append(f"{'//TEXT, !!TEXT':<{width}}  send TEXT that starts with a slash or a !")
    return "\n".join(lines)
