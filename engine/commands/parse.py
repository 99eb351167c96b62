"""The slash commands, parsed the same way for every front end.

`parse(line)` turns a line of input into a command; `!command` is the user's own shell
command; plain text (and `//text` or `!!text`, for text that starts with a slash or a `!`)
becomes `Say`. A line that is not a valid command raises `CommandError`
naming the command and its usage — the text is never sent to the model.
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from engine.commands.arguments import (
    approvals,
    approve,
    cancel,
    diff,
    export_of,
    goal,
    image,
    interaction_and,
    model,
    needs_text,
    new,
    no_arguments,
    plain,
    plan,
    reply,
    review,
    sandbox,
    side_action,
)
from engine.commands.kinds import (
    AccountCommand,
    Archive,
    Command,
    CommandError,
    Compact,
    Continue,
    Help,
    Inbox,
    Init,
    Mcp,
    OpenThread,
    Output,
    Provider,
    Quit,
    Rename,
    Resend,
    Reset,
    Revert,
    Rules,
    Say,
    Session,
    Shell,
    Side,
    Stop,
    Threads,
    Unarchive,
)
from engine.conversations.interactions import Decline


def revert(rest: str) -> Revert:
    if not rest:
        return Revert()
    if rest.isdigit() and int(rest) >= 1:
        return Revert(int(rest))
    raise ValueError("takes a number: 2 is the change before the latest")


def rules(rest: str) -> Rules:
    words = rest.split()
    if not words:
        return Rules()
    if len(words) == 2 and words[0] == "remove" and words[1].isdigit():
        return Rules(int(words[1]))
    raise ValueError("takes nothing, or remove N (N as it lists them)")


class Usage(msgspec.Struct, frozen=True):
    name: str
    arguments: str
    summary: str
    parse: Callable[[str], Command]

    @property
    def line(self) -> str:
        return f"/{self.name}{' ' + self.arguments if self.arguments else ''}"


COMMANDS: tuple[Usage, ...] = (
    Usage("stop", "", "stop the running turn (Esc); queued messages wait", no_arguments(Stop())),
    Usage(
        "cancel",
        "[ID]",
        "with an id: refuse that approval and end the turn; without: /stop",
        cancel,
    ),
    Usage(
        "reset",
        "",
        "stop, drop the queue and start a new Codex thread (generation + 1)",
        no_arguments(Reset()),
    ),
    Usage("session", "", "ids, thread, model, sandbox, approvals, tokens", no_arguments(Session())),
    Usage(
        "status",
        "",
        "the same as /session (the usage limits too, as codex last said them)",
        no_arguments(Session()),
    ),
    Usage(
        "compact",
        "",
        "have codex summarise the history into a shorter one, to free the context",
        no_arguments(Compact()),
    ),
    Usage(
        "goal",
        "[OBJECTIVE|clear|pause|resume]",
        "what codex works toward, by itself, until it is done; alone: show it",
        goal,
    ),
    Usage(
        "diff",
        "[turn]",
        "the working tree's changes against HEAD (git), with a file list; turn: the latest turn's",
        diff,
    ),
    Usage(
        "review",
        "[base BRANCH|commit SHA|INSTRUCTIONS]",
        "codex reviews the uncommitted changes (or a branch, a commit, as you say): findings",
        review,
    ),
    Usage(
        "mcp",
        "",
        "the MCP servers codex has (its config's), how each is, and their tools",
        no_arguments(Mcp()),
    ),
    Usage(
        "init",
        "",
        "have codex write an AGENTS.md for this directory (never over one that is there)",
        no_arguments(Init()),
    ),
    Usage(
        "output",
        "",
        "the latest command's whole output, in the pager (the screen keeps its last part)",
        no_arguments(Output()),
    ),
    Usage(
        "continue",
        "",
        "run the queued messages that wait (after /stop or a restart)",
        no_arguments(Continue()),
    ),
    Usage(
        "resend",
        "",
        "send once more the message whose outcome is unknown (after a crash)",
        no_arguments(Resend()),
    ),
    Usage(
        "new",
        "[@HOST] [TITLE]",
        "start a new conversation (on HOST, one of [hosts]; else on this one's)",
        new,
    ),
    Usage(
        "model",
        "[NAME [EFFORT]|all]",
        "choose the model and reasoning effort from the next turn; alone: list them",
        model,
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
        image,
    ),
    Usage(
        "export",
        "[--replace] [PATH]",
        "write the conversation as Markdown (secrets redacted; never over a file unless told)",
        export_of,
    ),
    Usage("account", "", "who codex is signed in as", no_arguments(AccountCommand("account"))),
    Usage(
        "login",
        "",
        "sign in: API key (masked), ChatGPT device code, or the offline demo",
        no_arguments(AccountCommand("login")),
    ),
    Usage("logout", "", "sign codex out", no_arguments(AccountCommand("logout"))),
    Usage(
        "threads",
        "",
        "list codex's threads made elsewhere (Codex CLI, IDE) in this CODEX_HOME",
        no_arguments(Threads()),
    ),
    Usage(
        "open",
        "THREAD_ID",
        "make one of codex's threads a conversation here",
        needs_text(OpenThread),
    ),
    Usage("rename", "TITLE", "rename this conversation", needs_text(Rename)),
    Usage("archive", "", "archive this conversation", no_arguments(Archive())),
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
        needs_text(lambda text: Say(text, queue=True)),
    ),
    Usage(
        "approve",
        "ID [session|rule|network]",
        "accept; for the session; or save the rule codex offers",
        interaction_and(approve),
    ),
    Usage("decline", "ID", "refuse an approval or question", interaction_and(plain(Decline()))),
    Usage("respond", "ID TEXT|JSON", "answer a question or form", interaction_and(reply)),
    Usage("plan", "[on|off]", "codex's plan mode: it plans and may ask you questions", plan),
    Usage(
        "approvals",
        "untrusted|on-request|never",
        "when codex asks before acting, from the next turn",
        approvals,
    ),
    Usage(
        "sandbox",
        "read-only|workspace-write|danger-full-access",
        "what commands may touch, from the next turn",
        sandbox,
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
        needs_text(lambda text: Side(text, new=True)),
    ),
    Usage("closeside", "[ID]", "close a side chat (its codex process ends)", side_action("close")),
    Usage(
        "bringside",
        "[ID|drop]",
        "bring a side chat's latest answer into your next message here (alt+h); drop: take out",
        side_action("bring"),
    ),
    Usage(
        "promote",
        "[ID]",
        "keep a side chat's fork as a new conversation (without the side answers)",
        side_action("promote"),
    ),
    Usage(
        "revert",
        "[N]",
        "review a change codex applied here (the latest; N: the Nth latest) hunk by hunk, "
        "and take some back",
        revert,
    ),
    Usage(
        "rules",
        "[remove N]",
        "codex's saved rules (every session) and this session's approvals; remove one",
        rules,
    ),
    Usage(
        "inbox",
        "",
        "every request waiting for your answer, oldest first, in every conversation (alt+i)",
        no_arguments(Inbox()),
    ),
    Usage("help", "", "list the commands", no_arguments(Help())),
    Usage(
        "quit",
        "",
        "close codex-deck (ctrl+q): it asks first while a request waits for an answer",
        no_arguments(Quit()),
    ),
    Usage("exit", "", "the same as /quit", no_arguments(Quit())),
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
