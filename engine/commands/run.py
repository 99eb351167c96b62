"""A line the user typed, run: a slash command, or text for the agent.

The commands that only list or describe (models, providers, threads, the account, images,
archived conversations, the latest output) are answered here; the rest are the engine's own
calls."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from engine.commands import parse as commands
from engine.conversations.choices import Choices
from engine.conversations.conversation import Conversation, Conversations
from engine.conversations.history import describe_thread
from engine.conversations.models import describe_model
from engine.conversations.notices import Notices
from engine.conversations.recovery import secret_not_kept
from engine.conversations.router import Router
from engine.conversations.threads import Threads
from engine.errors import ConnectionClosed, RpcError
from engine.results import CommandResult
from engine.settings import Settings
from engine.side_chats.manager import SideChats
from engine.side_chats.questions import SideQuestions

if TYPE_CHECKING:
    from engine.engine import Engine

THREAD_ID_SHOWN = 13


class CommandLine:
    """Runs what the user typed in a conversation (`Engine.execute`)."""

    def __init__(
        self,
        engine: Engine,
        conversations: Conversations,
        router: Router,
        notices: Notices,
        side_chats: SideChats,
        choices: Choices,
        threads: Threads,
        side_questions: SideQuestions,
        settings: Settings,
    ) -> None:
        self._engine = engine
        self._conversations = conversations
        self._router = router
        self._notices = notices
        self._side_chats = side_chats
        self._choices = choices
        self._threads = threads
        self._side_questions = side_questions
        self._settings = settings

    async def execute(self, conversation_id: str, line: str) -> CommandResult:
        """Run one line of input: a slash command, or text for the agent."""
        conversation = self._conversations.get(conversation_id)
        try:
            command = commands.parse(line)
        except commands.CommandError as error:
            return self._notices.failed(conversation.id, str(error))
        if isinstance(command, commands.Say):
            outcome = await self._engine.submit(
                conversation.id, command.text, "queue" if command.queue else "auto"
            )
            return CommandResult(outcome.accepted, outcome.message)
        if isinstance(command, commands.Stop):
            stopped = await self._engine.stop(conversation.id)
            return CommandResult(True, stopped.replace("_", " "))
        if isinstance(command, commands.Reset):
            return await self._engine.reset(conversation.id)
        if isinstance(command, commands.Respond):
            return await self._engine.respond(command.interaction, command.answer, conversation.id)
        if isinstance(command, commands.New):
            created = await self._engine.new_conversation(command.title)
            return CommandResult(True, f"Started {created.title!r}.", created.id)
        if isinstance(command, commands.Rename):
            renamed = self._engine.rename(conversation.id, command.title)
            return CommandResult(True, f"Renamed to {renamed.title!r}.")
        if isinstance(command, commands.Archive):
            await self._engine.archive(conversation.id)
            return CommandResult(True, "Archived.")
        if isinstance(command, commands.Plan):
            conversation.plan_mode = (
                not conversation.plan_mode if command.on is None else command.on
            )
            self._router.updated(conversation)
            state = "on" if conversation.plan_mode else "off"
            return self._notices.told(conversation, f"Plan mode is {state} from the next turn.")
        if isinstance(command, commands.Policy):
            if command.approvals is not None:
                conversation.approval_policy = command.approvals
                message = f"Approvals: {command.approvals}, from the next turn."
            else:
                conversation.sandbox = command.sandbox
                message = f"Sandbox: {command.sandbox}, from the next turn."
            self._router.updated(conversation)
            return self._notices.told(conversation, message)
        if isinstance(command, commands.Side):
            if command.question.strip():
                return await self._side_questions.ask_aside(
                    conversation.id, command.question, new=command.new
                )
            return self._notices.told(conversation, self._side_chats.describe(conversation.id))
        if isinstance(command, commands.SideAction):
            if command.action == "close":
                return await self._side_questions.close_side_chat(
                    conversation.id, command.side_chat
                )
            return await self._side_questions.promote_side_chat(conversation.id, command.side_chat)
        if isinstance(command, commands.AccountCommand):
            if command.action == "logout":
                result = await self._engine.sign_out()
                self._notices.say(conversation, "info" if result.ok else "error", result.message)
                return result
            if command.action == "login":
                return self._notices.failed(
                    conversation.id,
                    "Sign in from codex-deck's sign-in screen (/login there); an API key is "
                    "never typed into a message.",
                )
            return await self._describe_account(conversation)
        if isinstance(command, commands.Image):
            return await self._image(conversation, command)
        if isinstance(command, commands.Unarchive):
            if command.reference is None:
                return await self._list_archived(conversation)
            return await self._threads.unarchive(command.reference)
        if isinstance(command, commands.Export):
            target = Path(conversation.cwd) / (command.path or f"{conversation.title}.md")
            try:
                size = await self._engine.export_markdown(conversation.id, target)
            except OSError as error:
                return self._notices.failed(
                    conversation.id, f"Could not write {target}: {error.strerror}"
                )
            told = f"Exported to {target} ({size:,} characters)."
            if self._engine.offline and not Path(command.path or "").is_absolute():
                told += (
                    " The demo's workspace is thrown away when codex-deck closes: copy the file "
                    "out, or give /export a path outside it."
                )
            return self._notices.told(conversation, told)
        if isinstance(command, commands.Provider):
            if command.name is None:
                return self._list_providers(conversation)
            return await self._choices.switch_provider(conversation.id, command.name)
        if isinstance(command, commands.Model):
            if command.name is None:
                return await self._list_models(conversation, command.hidden)
            return await self._choices.choose_model(conversation.id, command.name, command.effort)
        if isinstance(command, commands.Threads):
            return await self._list_threads(conversation)
        if isinstance(command, commands.OpenThread):
            return await self._threads.open_thread(command.thread)
        if isinstance(command, commands.Continue):
            return self._engine.continue_queue(conversation.id)
        if isinstance(command, commands.Resend):
            return await self._resend(conversation)
        if isinstance(command, commands.Output):
            return self._output(conversation)
        if isinstance(command, commands.Session):
            text = self._engine.session_info(conversation.id).describe()
            self._notices.say(conversation, "info", text)
            return CommandResult(True, text)
        text = commands.help_text()
        self._notices.say(conversation, "info", text)
        return CommandResult(True, text)

    async def _list_archived(self, conversation: Conversation) -> CommandResult:
        archived = await self._threads.archived()
        if not archived:
            return self._notices.told(conversation, "No conversation is archived.")
        listed = "\n".join(f"  {c.id[:8]}  {c.title}" for c in archived)
        return self._notices.told(
            conversation, f"Archived (/unarchive ID brings one back):\n{listed}"
        )

    def _list_providers(self, conversation: Conversation) -> CommandResult:
        current = self._engine.session_info(conversation.id).provider
        names = list(self._settings.providers)
        if not names:
            return self._notices.told(
                conversation, "No [providers.NAME] in the settings; codex uses its own."
            )
        lines = [f"{name}{'  [in use]' if name == current else ''}" for name in names]
        lines.append("/provider NAME moves this conversation to one.")
        return self._notices.told(conversation, "\n".join(lines))

    async def _list_models(self, conversation: Conversation, hidden: bool) -> CommandResult:
        try:
            offered = await self._choices.models(include_hidden=hidden)
        except (RpcError, ConnectionClosed) as error:
            return self._notices.failed(
                conversation.id, f"codex could not list its models: {error}"
            )
        current = self._engine.session_info(conversation.id).model
        lines = [describe_model(model, model.model == current) for model in offered]
        lines.append("/model NAME [EFFORT] chooses one; /model all lists hidden ones too.")
        return self._notices.told(conversation, "\n".join(lines))

    async def _list_threads(self, conversation: Conversation) -> CommandResult:
        try:
            threads = await self._threads.codex_threads()
        except (RpcError, ConnectionClosed) as error:
            return self._notices.failed(
                conversation.id, f"codex could not list its threads: {error}"
            )
        if not threads:
            return self._notices.told(conversation, "codex has no other threads here.")
        lines = [f"{t.id[:THREAD_ID_SHOWN]}  {describe_thread(t)}" for t in threads]
        lines.append("/open ID makes one a conversation here (a unique start of its id is enough).")
        return self._notices.told(conversation, "\n".join(lines))

    async def _image(self, conversation: Conversation, command: commands.Image) -> CommandResult:
        if command.path is not None:
            result = await self._choices.attach_image(conversation.id, Path(command.path))
            return self._notices.told(conversation, result.message) if result.ok else result
        if command.clear:
            dropped = len(conversation.images)
            conversation.images.clear()
            self._router.updated(conversation)
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
            staged = await self._choices.attach_image(conversation.id, Path(path))
            if not staged.ok:
                return staged
        outcome = await self._engine.submit(conversation.id, unknown.text)
        if outcome.accepted:
            conversation.unsettled.remove(unknown)
        return CommandResult(outcome.accepted, outcome.message)

    async def _describe_account(self, conversation: Conversation) -> CommandResult:
        try:
            read = await self._engine.account()
        except (RpcError, ConnectionClosed) as error:
            return self._notices.failed(conversation.id, f"codex could not say: {error}")
        account = read.account
        if account is None:
            needs = (
                " codex needs one for its OpenAI models: /login"
                if read.requires_openai_auth
                else ""
            )
            return self._notices.told(conversation, f"Not signed in.{needs}")
        who = f" as {account.email}" if account.email else ""
        plan = f" ({account.plan_type})" if account.plan_type else ""
        return self._notices.told(conversation, f"Signed in with {account.type}{who}{plan}.")

    def _output(self, conversation: Conversation) -> CommandResult:
        kept = self._engine.command_output(conversation.id)
        if kept.path is None:
            return CommandResult(False, f"No command output is kept: {kept.problem}.")
        text = f"The latest command's whole output ({kept.size:,} bytes) is in {kept.path}"
        self._notices.say(conversation, "info", text)
        return CommandResult(True, text)
