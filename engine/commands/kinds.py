"""The slash commands as typed values: what `parse` makes of a line, and what the commands'
runner and the front ends match on. msgspec structs, made in C as the module is imported
(as dataclasses, these 35 classes took 15 ms of every start; see `engine.events`)."""

from __future__ import annotations

from typing import Literal

import msgspec

from engine.conversations.interactions import Answer
from engine.protocol import ApprovalPolicy, SandboxMode


class CommandError(ValueError):
    """The line is not a valid command; the message says why and how to use it."""


class Say(msgspec.Struct, frozen=True):
    """Plain text for the agent (started, steered or queued)."""

    text: str
    queue: bool = False


class Stop(msgspec.Struct, frozen=True):
    pass


class Reset(msgspec.Struct, frozen=True):
    pass


class Session(msgspec.Struct, frozen=True):
    pass


class Output(msgspec.Struct, frozen=True):
    """Where the latest command's whole output is kept (a front end opens it in a pager)."""


class New(msgspec.Struct, frozen=True):
    title: str | None
    host: str | None = None
    """`/new @HOST …`: the machine to start it on (`[hosts]`); None: the conversation's."""


class Rename(msgspec.Struct, frozen=True):
    title: str


class Archive(msgspec.Struct, frozen=True):
    pass


class Help(msgspec.Struct, frozen=True):
    pass


class Quit(msgspec.Struct, frozen=True):
    """Close the app (a front end's to do; it asks first while a request waits)."""


class Inbox(msgspec.Struct, frozen=True):
    """List every request waiting for an answer (a front end's to do: it opens its inbox)."""


class Revert(msgspec.Struct, frozen=True):
    """Review a change codex applied here (`back`: 1 the latest, 2 the one before …), hunk
    by hunk, to take some back (a front end's to do: it opens its review)."""

    back: int = 1


class Rules(msgspec.Struct, frozen=True):
    """List codex's saved rules and the session's approvals; or remove saved rule `remove`."""

    remove: int | None = None


class AccountCommand(msgspec.Struct, frozen=True):
    """Show the account, sign out, or (in a front end) open the sign-in screen."""

    action: Literal["account", "login", "logout"]


class Unarchive(msgspec.Struct, frozen=True):
    """Bring back an archived conversation (by id or id prefix); without one, list them."""

    reference: str | None


class Image(msgspec.Struct, frozen=True):
    """Attach the image at `path` to the next message; without one, list what is attached;
    `clear` drops it all."""

    path: str | None
    clear: bool = False


class Export(msgspec.Struct, frozen=True):
    """Write the conversation as Markdown (to `path`, else TITLE.md in its cwd; over a file
    there only with `--replace`)."""

    path: str | None
    replace: bool = False


class Provider(msgspec.Struct, frozen=True):
    """List the providers, or move the conversation to one (None: list)."""

    name: str | None


class Model(msgspec.Struct, frozen=True):
    """List codex's models (with `all`, hidden ones too), or choose one and its effort."""

    name: str | None
    effort: str | None = None
    hidden: bool = False


class Threads(msgspec.Struct, frozen=True):
    """List codex's threads that no conversation here follows."""


class OpenThread(msgspec.Struct, frozen=True):
    """Make one of codex's threads a conversation here."""

    thread: str


class Resend(msgspec.Struct, frozen=True):
    """Send again the message whose outcome is unknown."""


class Continue(msgspec.Struct, frozen=True):
    """Run the queued messages that wait."""


class Plan(msgspec.Struct, frozen=True):
    """Turn codex's plan mode on or off (None: flip it)."""

    on: bool | None


class Policy(msgspec.Struct, frozen=True):
    """Change the approval policy or the sandbox from the next turn."""

    approvals: ApprovalPolicy | None = None
    sandbox: SandboxMode | None = None


class Respond(msgspec.Struct, frozen=True):
    """An answer to the interaction with this id (or unique prefix)."""

    interaction: str
    answer: Answer


class Compact(msgspec.Struct, frozen=True):
    """Have codex summarise the history into a shorter one, freeing the context."""


class Shell(msgspec.Struct, frozen=True):
    """The user's own shell command (`!command`), run in the conversation's thread."""

    command: str


class Init(msgspec.Struct, frozen=True):
    """Have codex write an AGENTS.md for the working directory, in a turn."""


class Goal(msgspec.Struct, frozen=True):
    """Show the goal (`show`), set it to `objective`, clear, pause or resume it."""

    action: Literal["show", "set", "clear", "pause", "resume"]
    objective: str = ""


class Diff(msgspec.Struct, frozen=True):
    """The working tree's changes against HEAD (`tree`), or the latest turn's (`turn`)."""

    of: Literal["tree", "turn"] = "tree"


class Review(msgspec.Struct, frozen=True):
    """Have codex review code: the uncommitted changes, against a base branch, a commit, or
    as custom instructions say (`what`: the branch, the commit or the instructions)."""

    how: Literal["uncommitted", "base", "commit", "custom"] = "uncommitted"
    what: str = ""


class Mcp(msgspec.Struct, frozen=True):
    """List the MCP servers codex has, how each is, and its tools."""


class Side(msgspec.Struct, frozen=True):
    """A side question (in the active side chat, or a new one); no question: list them."""

    question: str
    new: bool = False


class SideAction(msgspec.Struct, frozen=True):
    """Close or promote a side chat, or bring its latest answer into the conversation (the
    active one when no id is given); or take the answers brought in out (`drop`)."""

    action: Literal["close", "promote", "bring", "drop"]
    side_chat: str | None


Command = (
    Say
    | Image
    | Unarchive
    | Stop
    | Reset
    | Session
    | Output
    | New
    | Rename
    | Archive
    | Help
    | Quit
    | Inbox
    | Rules
    | Revert
    | Resend
    | Continue
    | Threads
    | OpenThread
    | Model
    | Provider
    | Export
    | AccountCommand
    | Respond
    | Plan
    | Policy
    | Side
    | SideAction
    | Compact
    | Shell
    | Init
    | Goal
    | Mcp
    | Diff
    | Review
)
