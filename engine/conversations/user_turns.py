"""Turns the user asks of codex beside messages: `/compact` (codex summarises the history into
a shorter one), `!command` (the user's own shell command, run in the thread so the model
sees it: with codex's `thread/shellCommand` where the sandbox is full access, else under the
sandbox, see user_shell.py) and `/init` (a message asking for an AGENTS.md). Each runs as a
turn of its own; the router follows it as any turn."""

from __future__ import annotations

from engine import protocol as wire
from engine.conversations.conversation import Conversation
from engine.conversations.core import Core
from engine.conversations.restore import Restorer
from engine.conversations.turns import Turns
from engine.conversations.user_shell import SandboxedShell, full_access, sandbox_policy
from engine.errors import ConnectionClosed, RpcError
from engine.events import BUSY_STATES
from engine.results import CommandResult

AGENTS_FILE = "AGENTS.md"
INIT_PROMPT = f"""Write a file named {AGENTS_FILE} in the working directory: a short guide \
(about 200 to 400 words, Markdown headings) for anyone, person or agent, who works on this \
repository. Read the repository first and say only what is true of it:

- how it is laid out: where the code, the tests and other assets live;
- the commands that build it, test it and run it, each with a line on what it does;
- its code style: formatting, naming, the linters and formatters it uses;
- how it is tested: the frameworks, where tests go, how they are named and run;
- how commits and pull requests are written here, as its history shows.

Leave out what does not apply, and add a section where the repository needs one (security, \
configuration, architecture). Be concrete: real paths, real commands."""
"""What `/init` asks of codex (in codex-deck's words; the Codex TUI's /init asks the same)."""


def said_anything(conversation: Conversation) -> bool:
    """Whether the conversation's thread has anything in its history yet."""
    opened = conversation.thread
    return conversation.thread_id is not None and bool(
        conversation.token_usage is not None
        or conversation.finished_turns
        or (opened is not None and (opened.thread.preview or opened.thread.turns))
    )


def refusal(core: Core, conversation: Conversation, done: str) -> CommandResult | None:
    """Why nothing can be `done` now in the conversation: codex is not running, or a turn runs
    there (said as a notice too)."""
    reason = core.link.not_running()
    if reason is not None:
        return core.notices.failed(
            conversation.id, f"codex is not running ({reason}). Nothing was {done}."
        )
    if conversation.state in BUSY_STATES:
        return core.notices.failed(
            conversation.id,
            f"A turn is running: wait for it to end, or /stop it. Nothing was {done}.",
        )
    return None


class UserTurns:
    def __init__(self, core: Core, turns: Turns, restorer: Restorer) -> None:
        self._core = core
        self._turns = turns
        self._restorer = restorer
        self._sandboxed = SandboxedShell(core)

    async def compact(self, conversation_id: str) -> CommandResult:
        """Ask codex to compact the conversation's history (`/compact`); refused while a turn
        runs, and when there is nothing to compact yet."""
        conversation = self._core.conversations.get(conversation_id)
        refused = refusal(self._core, conversation, "compacted")
        if refused is not None:
            return refused
        if not said_anything(conversation):
            return self._core.notices.failed(
                conversation.id, "Nothing to compact yet: no message was sent here."
            )
        await self._restorer.restored()
        assert conversation.thread_id is not None
        try:
            await self._core.server.thread_compact_start(
                wire.ThreadCompactStartParams(thread_id=conversation.thread_id)
            )
        except (RpcError, ConnectionClosed) as error:
            return self._core.notices.failed(
                conversation.id, f"codex could not compact the history: {error}"
            )
        return self._core.notices.told(
            conversation, "Compacting: codex summarises the history to free the context."
        )

    async def shell(self, conversation_id: str, command: str) -> CommandResult:
        """Run the user's `command` in the conversation's thread (`!command`), where the model
        sees its output; a thread is started for it when the conversation has none yet."""
        conversation = self._core.conversations.get(conversation_id)
        if not command.strip():
            return self._core.notices.failed(
                conversation.id, "! needs a command, as in `!git status`. Nothing was run."
            )
        if len(command) > wire.TEXT_INPUT_CHARS:
            return self._core.notices.failed(
                conversation.id,
                f"The command has {len(command):,} characters; codex takes "
                f"{wire.TEXT_INPUT_CHARS:,} at most. Nothing was run.",
            )
        refused = refusal(self._core, conversation, "run")
        if refused is not None:
            return refused
        await self._restorer.restored()
        if conversation.thread_id is None and not await self._turns.start_thread(conversation):
            return CommandResult(False, "codex could not start a thread; see the notice.")
        assert conversation.thread_id is not None
        if not full_access(sandbox_policy(conversation, self._core.settings)):
            return await self._sandboxed.start(conversation, command)
        try:
            await self._core.server.thread_shell_command(
                wire.ThreadShellCommandParams(thread_id=conversation.thread_id, command=command)
            )
        except (RpcError, ConnectionClosed) as error:
            return self._core.notices.failed(
                conversation.id, f"codex could not run the command: {error}"
            )
        return CommandResult(True, "Running.")

    async def init(self, conversation_id: str) -> CommandResult:
        """Ask codex for an AGENTS.md in the conversation's directory (`/init`), unless one is
        there already (looked for where codex runs, which may be another machine)."""
        conversation = self._core.conversations.get(conversation_id)
        refused = refusal(self._core, conversation, "asked")
        if refused is not None:
            return refused
        target = f"{conversation.cwd.rstrip('/')}/{AGENTS_FILE}"
        try:
            await self._core.server.fs_get_metadata(wire.FsGetMetadataParams(path=target))
        except RpcError:
            pass  # not there (or not readable there): codex says so when it tries
        except ConnectionClosed as error:
            return self._core.notices.failed(conversation.id, f"codex went away: {error}")
        else:
            return self._core.notices.failed(
                conversation.id,
                f"{target} is already there; /init does not write over it. Ask codex to "
                "update it instead.",
            )
        outcome = await self._turns.submit(conversation.id, INIT_PROMPT)
        return CommandResult(outcome.accepted, outcome.message)
