"""The slash commands as typed values: what `parse` makes of a line, and what the commands'
runner and the front ends match on."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from engine.conversations.interactions import Answer
from engine.protocol import ApprovalPolicy, SandboxMode


class CommandError(ValueError):
    """The line is not a valid command; the message says why and how to use it."""


@dataclass(frozen=True, slots=True)
class Say:
    """Plain text for the agent (started, steered or queued)."""

    text: str
    queue: bool = False


@dataclass(frozen=True, slots=True)
class Stop:
    pass


@dataclass(frozen=True, slots=True)
class Reset:
    pass


@dataclass(frozen=True, slots=True)
class Session:
    pass


@dataclass(frozen=True, slots=True)
class Output:
    """Where the latest command's whole output is kept (a front end opens it in a pager)."""


@dataclass(frozen=True, slots=True)
class New:
    title: str | None
    host: str | None = None
    """`/new @HOST …`: the machine to start it on (`[hosts]`); None: the conversation's."""


@dataclass(frozen=True, slots=True)
class Rename:
    title: str


@dataclass(frozen=True, slots=True)
class Archive:
    pass


@dataclass(frozen=True, slots=True)
class Help:
    pass


@dataclass(frozen=True, slots=True)
class Quit:
    """Close the app (a front end's to do; it asks first while a request waits)."""


@dataclass(frozen=True, slots=True)
class Inbox:
    """List every request waiting for an answer (a front end's to do: it opens its inbox)."""


@dataclass(frozen=True, slots=True)
class Revert:
    """Review a change codex applied here (`back`: 1 the latest, 2 the one before …), hunk
    by hunk, to take some back (a front end's to do: it opens its review)."""

    back: int = 1


@dataclass(frozen=True, slots=True)
class Rules:
    """List codex's saved rules and the session's approvals; or remove saved rule `remove`."""

    remove: int | None = None


@dataclass(frozen=True, slots=True)
class AccountCommand:
    """Show the account, sign out, or (in a front end) open the sign-in screen."""

    action: Literal["account", "login", "logout"]


@dataclass(frozen=True, slots=True)
class Unarchive:
    """Bring back an archived conversation (by id or id prefix); without one, list them."""

    reference: str | None


@dataclass(frozen=True, slots=True)
class Image:
    """Attach the image at `path` to the next message; without one, list what is attached;
    `clear` drops it all."""

    path: str | None
    clear: bool = False


@dataclass(frozen=True, slots=True)
class Export:
    """Write the conversation as Markdown (to `path`, else TITLE.md in its cwd; over a file
    there only with `--replace`)."""

    path: str | None
    replace: bool = False


@dataclass(frozen=True, slots=True)
class Provider:
    """List the providers, or move the conversation to one (None: list)."""

    name: str | None


@dataclass(frozen=True, slots=True)
class Model:
    """List codex's models (with `all`, hidden ones too), or choose one and its effort."""

    name: str | None
    effort: str | None = None
    hidden: bool = False


@dataclass(frozen=True, slots=True)
class Threads:
    """List codex's threads that no conversation here follows."""


@dataclass(frozen=True, slots=True)
class OpenThread:
    """Make one of codex's threads a conversation here."""

    thread: str


@dataclass(frozen=True, slots=True)
class Resend:
    """Send again the message whose outcome is unknown."""


@dataclass(frozen=True, slots=True)
class Continue:
    """Run the queued messages that wait."""


@dataclass(frozen=True, slots=True)
class Plan:
    """Turn codex's plan mode on or off (None: flip it)."""

    on: bool | None


@dataclass(frozen=True, slots=True)
class Policy:
    """Change the approval policy or the sandbox from the next turn."""

    approvals: ApprovalPolicy | None = None
    sandbox: SandboxMode | None = None


@dataclass(frozen=True, slots=True)
class Respond:
    """An answer to the interaction with this id (or unique prefix)."""

    interaction: str
    answer: Answer


@dataclass(frozen=True, slots=True)
class Compact:
    """Have codex summarise the history into a shorter one, freeing the context."""


@dataclass(frozen=True, slots=True)
class Shell:
    """The user's own shell command (`!command`), run in the conversation's thread."""

    command: str


@dataclass(frozen=True, slots=True)
class Init:
    """Have codex write an AGENTS.md for the working directory, in a turn."""


@dataclass(frozen=True, slots=True)
class Goal:
    """Show the goal (`show`), set it to `objective`, clear, pause or resume it."""

    action: Literal["show", "set", "clear", "pause", "resume"]
    objective: str = ""


@dataclass(frozen=True, slots=True)
class Diff:
    """The working tree's changes against HEAD (`tree`), or the latest turn's (`turn`)."""

    of: Literal["tree", "turn"] = "tree"


@dataclass(frozen=True, slots=True)
class Review:
    """Have codex review code: the uncommitted changes, against a base branch, a commit, or
    as custom instructions say (`what`: the branch, the commit or the instructions)."""

    how: Literal["uncommitted", "base", "commit", "custom"] = "uncommitted"
    what: str = ""


@dataclass(frozen=True, slots=True)
class Mcp:
    """List the MCP servers codex has, how each is, and its tools."""


@dataclass(frozen=True, slots=True)
class Side:
    """A side question (in the active side chat, or a new one); no question: list them."""

    question: str
    new: bool = False


@dataclass(frozen=True, slots=True)
class SideAction:
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
