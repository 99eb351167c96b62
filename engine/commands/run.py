"""A line the user typed, run: a slash command, or text for the agent.

The commands that only list or describe (models, providers, threads, the account, images,
archived conversations, the latest output) are answered here; the rest go to the room of the
conversation core that does them (turns, the conversations' life, requests, choices, threads,
side questions, the account)."""

from __future__ import annotations

from pathlib import Path

import msgspec

from engine.account import Account
from engine.commands import kinds
from engine.commands.arguments import REPLACE
from engine.commands.parse import help_text, parse
from engine.conversations.choices import Choices
from engine.conversations.conversation import Conversation
from engine.conversations.core import Core
from engine.conversations.diffs import Diffs, DiffUnavailable
from engine.conversations.goals import Goals
from engine.conversations.lifecycle import Lifecycle
from engine.conversations.mcp import McpServers
from engine.conversations.models import describe_model
from engine.conversations.recovery import secret_not_kept
from engine.conversations.review import Reviews
from engine.conversations.rules import Rules
from engine.conversations.session import session_info
from engine.conversations.threads import Threads, thread_lines
from engine.conversations.turns import Turns
from engine.conversations.user_turns import UserTurns
from engine.errors import ConnectionClosed, RpcError
from engine.records.outputs import CommandOutputs
from engine.results import CommandResult
from engine.side_chats.manager import SideChats
from engine.side_chats.questions import SideQuestions
from engine.transport.offline import is_offline


class Rooms(msgspec.Struct, frozen=True):
    """The rooms of the conversation core the commands go to."""

    turns: Turns
    user_turns: UserTurns
    goals: Goals
    mcp: McpServers
    diffs: Diffs
    reviews: Reviews
    lifecycle: Lifecycle
    choices: Choices
    threads: Threads
    side_chats: SideChats
    side_questions: SideQuestions
    account: Account
    outputs: CommandOutputs
    rules: Rules


class CommandLine:
    """Runs what the user typed in a conversation (`Engine.execute`)."""

    def __init__(self, core: Core, rooms: Rooms) -> None:
        self._core = core
        self._rooms = rooms
        self._notices = core.notices

    async def execute(self, conversation_id: str, line: str) -> CommandResult:
        """Run one line of input: a slash command, or text for the agent."""
        conversation = self._core.conversations.get(conversation_id)
        try:
            command = parse(line)
        except kinds.CommandError as error:
            return self._notices.failed(conversation.id, str(error))
        if isinstance(command, kinds.Say):
            outcome = await self._rooms.turns.submit(
                conversation.id, command.text, "queue" if command.queue else "auto"
            )
            return CommandResult(outcome.accepted, outcome.message)
        if isinstance(command, kinds.Shell):
            return await self._rooms.user_turns.shell(conversation.id, command.command)
        if isinstance(command, kinds.Compact):
            return await self._rooms.user_turns.compact(conversation.id)
        if isinstance(command, kinds.Init):
            return await self._rooms.user_turns.init(conversation.id)
        if isinstance(command, kinds.Diff):
            try:
                view = await self._rooms.diffs.diff(conversation.id, command.of)
            except DiffUnavailable as error:
                return self._notices.failed(conversation.id, str(error))
            return self._notices.told(conversation, view.summary())
        if isinstance(command, kinds.Review):
            return await self._rooms.reviews.start(conversation.id, command.how, command.what)
        if isinstance(command, kinds.Mcp):
            return await self._rooms.mcp.describe(conversation)
        if isinstance(command, kinds.Goal):
            return await self._rooms.goals.goal(conversation.id, command.action, command.objective)
        if isinstance(command, kinds.Stop):
            stopped = await self._rooms.turns.stop(conversation.id)
            return CommandResult(True, stopped.replace("_", " "))
        if isinstance(command, kinds.Reset):
            return await self._rooms.turns.reset(conversation.id, self._rooms.side_chats.close_all)
        if isinstance(command, kinds.Respond):
            return self._core.router.requests.respond(
                command.interaction, command.answer, conversation.id
            )
        if isinstance(command, kinds.New):
            if command.host is not None and command.host != self._core.link.host:
                where = self._core.link.host or "this codex"
                return self._notices.failed(
                    conversation.id,
                    f"No host {command.host!r} here: conversations start on {where} (other "
                    "machines are set as [hosts.NAME] in the settings).",
                )
            created = await self._rooms.lifecycle.new(command.title)
            return CommandResult(True, f"Started {created.title!r}.", created.id)
        if isinstance(command, kinds.Rename):
            renamed = self._rooms.lifecycle.rename(conversation.id, command.title)
            return CommandResult(True, f"Renamed to {renamed.title!r}.")
        if isinstance(command, kinds.Archive):
            await self._rooms.lifecycle.archive(conversation.id)
            return CommandResult(True, "Archived.")
        if isinstance(command, kinds.Plan):
            conversation.plan_mode = (
                not conversation.plan_mode if command.on is None else command.on
            )
            self._core.router.updated(conversation)
            state = "on" if conversation.plan_mode else "off"
            return self._notices.told(conversation, f"Plan mode is {state} from the next turn.")
        if isinstance(command, kinds.Policy):
            if command.approvals is not None:
                conversation.approval_policy = command.approvals
                message = f"Approvals: {command.approvals}, from the next turn."
            else:
                conversation.sandbox = command.sandbox
                message = f"Sandbox: {command.sandbox}, from the next turn."
            self._core.router.updated(conversation)
            return self._notices.told(conversation, message)
        if isinstance(command, kinds.Side):
            if command.question.strip():
                return await self._rooms.side_questions.ask_aside(
                    conversation.id, command.question, new=command.new
                )
            return self._notices.told(
                conversation, self._rooms.side_chats.describe(conversation.id)
            )
        if isinstance(command, kinds.SideAction):
            if command.action == "bring":
                return self._rooms.side_questions.bring_home(conversation.id, command.side_chat)
            if command.action == "drop":
                return self._rooms.side_questions.drop_brought(conversation.id)
            if command.action == "close":
                return await self._rooms.side_questions.close_side_chat(
                    conversation.id, command.side_chat
                )
            return await self._rooms.side_questions.promote_side_chat(
                conversation.id, command.side_chat
            )
        if isinstance(command, kinds.AccountCommand):
            if command.action == "logout":
                result = await self._rooms.account.sign_out()
                self._notices.say(conversation, "info" if result.ok else "error", result.message)
                return result
            if command.action == "login":
                return self._notices.failed(
                    conversation.id,
                    "Sign in from codex-deck's sign-in screen (/login there); an API key is "
                    "never typed into a message.",
                )
            return await self._describe_account(conversation)
        if isinstance(command, kinds.Image):
            return await self._image(conversation, command)
        if isinstance(command, kinds.Unarchive):
            if command.reference is None:
                return await self._list_archived(conversation)
            return await self._rooms.threads.unarchive(command.reference)
        if isinstance(command, kinds.Export):
            target = Path(conversation.cwd) / (command.path or f"{conversation.title}.md")
            lifecycle = self._rooms.lifecycle
            try:
                size = await lifecycle.export_markdown(conversation.id, target, command.replace)
            except FileExistsError:
                again = " ".join(["/export", REPLACE, *([command.path] if command.path else [])])
                return self._notices.failed(
                    conversation.id,
                    f"{target} is there already; nothing was written. `{again}` writes over it.",
                )
            except OSError as error:
                return self._notices.failed(
                    conversation.id, f"Could not write {target}: {error.strerror}"
                )
            told = f"Exported to {target} ({size:,} characters)."
            if is_offline(self._core.settings) and not Path(command.path or "").is_absolute():
                told += (
                    " The demo's workspace is thrown away when codex-deck closes: copy the file "
                    "out, or give /export a path outside it."
                )
            return self._notices.told(conversation, told)
        if isinstance(command, kinds.Provider):
            if command.name is None:
                return self._list_providers(conversation)
            return await self._rooms.choices.switch_provider(conversation.id, command.name)
        if isinstance(command, kinds.Model):
            if command.name is None:
                return await self._list_models(conversation, command.hidden)
            return await self._rooms.choices.choose_model(
                conversation.id, command.name, command.effort
            )
        if isinstance(command, kinds.Threads):
            return await self._list_threads(conversation)
        if isinstance(command, kinds.OpenThread):
            return await self._rooms.threads.open_thread(command.thread)
        if isinstance(command, kinds.Continue):
            return self._rooms.turns.continue_queue(conversation.id)
        if isinstance(command, kinds.Resend):
            return await self._resend(conversation)
        if isinstance(command, kinds.Output):
            return self._output(conversation)
        if isinstance(command, kinds.Session):
            limits = self._core.router.reports.limits.windows()
            text = session_info(conversation, self._core.settings, limits).describe()
            self._notices.say(conversation, "info", text)
            return CommandResult(True, text)
        if isinstance(command, kinds.Quit):
            return self._notices.failed(
                conversation.id, "/quit closes the app, which did not take it here: ctrl+q does."
            )
        if isinstance(command, kinds.Rules):
            if command.remove is None:
                listed = await self._rooms.rules.describe(conversation)
                if not listed.ok:
                    return self._notices.failed(conversation.id, listed.message)
                return self._notices.told(conversation, listed.message)
            removed = await self._rooms.rules.remove(conversation, command.remove)
            if not removed.ok:
                return self._notices.failed(conversation.id, removed.message)
            return self._notices.told(conversation, removed.message)
        if isinstance(command, kinds.Revert):
            return self._notices.failed(
                conversation.id, "/revert opens the app's review, which did not take it here."
            )
        if isinstance(command, kinds.Inbox):
            return self._notices.failed(
                conversation.id, "/inbox opens the app's inbox, which did not take it here."
            )
        text = help_text()
        self._notices.say(conversation, "info", text)
        return CommandResult(True, text)

    async def _list_archived(self, conversation: Conversation) -> CommandResult:
        archived = await self._rooms.threads.archived()
        if not archived:
            return self._notices.told(conversation, "No conversation is archived.")
        listed = "\n".join(f"  {c.id[:8]}  {c.title}" for c in archived)
        return self._notices.told(
            conversation, f"Archived (/unarchive ID brings one back):\n{listed}"
        )

    def _list_providers(self, conversation: Conversation) -> CommandResult:
        current = session_info(conversation, self._core.settings).provider
        names = list(self._core.settings.providers)
        if not names:
            return self._notices.told(
                conversation, "No [providers.NAME] in the settings; codex uses its own."
            )
        lines = [f"{name}{'  [in use]' if name == current else ''}" for name in names]
        lines.append("/provider NAME moves this conversation to one.")
        return self._notices.told(conversation, "\n".join(lines))

    async def _list_models(self, conversation: Conversation, hidden: bool) -> CommandResult:
        try:
            offered = await self._rooms.choices.models(include_hidden=hidden)
        except (RpcError, ConnectionClosed) as error:
            return self._notices.failed(
                conversation.id, f"codex could not list its models: {error}"
            )
        current = session_info(conversation, self._core.settings).model
        lines = [describe_model(model, model.model == current) for model in offered]
        lines.append("/model NAME [EFFORT] chooses one; /model all lists hidden ones too.")
        return self._notices.told(conversation, "\n".join(lines))

    async def _list_threads(self, conversation: Conversation) -> CommandResult:
        try:
            threads = await self._rooms.threads.codex_threads()
        except (RpcError, ConnectionClosed) as error:
            return self._notices.failed(
                conversation.id, f"codex could not list its threads: {error}"
            )
        told = self._notices.told(
            conversation, thread_lines(threads) if threads else "codex has no other threads here."
        )
        self._core.tasks.start_soon(self._rooms.threads.listed_again, conversation, threads)
        return told

    async def _image(self, conversation: Conversation, command: kinds.Image) -> CommandResult:
        if command.path is not None:
            result = await self._rooms.choices.attach_image(conversation.id, Path(command.path))
            return self._notices.told(conversation, result.message) if result.ok else result
        if command.clear:
            dropped = len(conversation.images)
            conversation.images.clear()
            self._core.router.updated(conversation)
            return self._notices.told(conversation, f"Dropped {dropped} attached image(s).")
        if not conversation.images:
            return self._notices.told(
                conversation, "No image is attached; /image PATH attaches one."
            )
        listed = "\n".join(f"  {image.label}  {image.path}" for image in conversation.images)
        return self._notices.told(conversation, f"Attached to your next message:\n{listed}")

    async def _resend(self, conversation: Conversation) -> CommandResult:
        """Send the latest message whose outcome is unknown as a new message."""
        if not conversation.unsettled:
            return self._notices.failed(conversation.id, "No message has an unknown outcome here.")
        unknown = conversation.unsettled[-1]
        if unknown.secret_lost:
            return self._notices.failed(
                conversation.id, secret_not_kept(unknown.text, "sent again")
            )
        conversation.unknown_dropped()
        for path in unknown.images:
            staged = await self._rooms.choices.attach_image(conversation.id, Path(path))
            if not staged.ok:
                return staged
        outcome = await self._rooms.turns.submit(conversation.id, unknown.text)
        if outcome.accepted:
            conversation.unsettled.remove(unknown)
        return CommandResult(outcome.accepted, outcome.message)

    async def _describe_account(self, conversation: Conversation) -> CommandResult:
        try:
            said = await self._rooms.account.describe()
        except (RpcError, ConnectionClosed) as error:
            return self._notices.failed(conversation.id, f"codex could not say: {error}")
        return self._notices.told(conversation, said)

    def _output(self, conversation: Conversation) -> CommandResult:
        kept = self._rooms.outputs.kept(conversation.id, None)
        if kept.path is None:
            return CommandResult(False, f"No command output is kept: {kept.problem}.")
        text = f"The latest command's whole output ({kept.size:,} bytes) is in {kept.path}"
        self._notices.say(conversation, "info", text)
        return CommandResult(True, text)
