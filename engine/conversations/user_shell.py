"""The user's `!command` under the conversation's sandbox.

Codex's own `thread/shellCommand` runs the command with full access, whatever the thread's
sandbox; codex-deck uses it only where the sandbox is full access anyway. Elsewhere the command
runs where codex runs with `command/exec`, under the conversation's sandbox policy, its output
streamed. The router is told it as the turn codex makes of a shell command of the user's
(started, the command's item and its output, completed), so it shows, queues what is typed
meanwhile and stops as that turn does; its result goes into the thread's history in codex's
own words (`<user_shell_command>`), so the model sees it as it would have."""

from __future__ import annotations

import base64
from typing import Any

from engine import protocol as wire
from engine.conversations.conversation import Conversation
from engine.conversations.core import Core
from engine.conversations.sandbox_leftovers import absent, remove_left
from engine.conversations.shell_runs import SHELL, ShellRun
from engine.errors import ConnectionClosed, RpcError
from engine.results import CommandResult
from engine.settings import Settings

SHELL_TIMEOUT_MS = 3_600_000
"""As long as codex gives a `thread/shellCommand` (an hour)."""
MODEL_OUTPUT_CHARS = 16_000
"""As much of the output as goes into the model's history (its start and its end)."""
FULL_ACCESS = "dangerFullAccess"


def sandbox_policy(conversation: Conversation, settings: Settings) -> dict[str, Any]:
    """The sandbox the conversation's turns run in: set with /sandbox, else the thread's,
    else the settings'."""
    if conversation.sandbox is not None:
        return wire.SANDBOX_POLICIES[conversation.sandbox]
    opened = conversation.thread
    if opened is not None and opened.sandbox:
        return opened.sandbox
    return wire.SANDBOX_POLICIES[settings.codex.sandbox]


def full_access(policy: dict[str, Any]) -> bool:
    return policy.get("type") == FULL_ACCESS


def clipped_output(output: str, most: int = MODEL_OUTPUT_CHARS) -> str:
    if len(output) <= most:
        return output
    half = most // 2
    cut = len(output) - 2 * half
    return f"{output[:half]}\n[… {cut:,} characters left out …]\n{output[-half:]}"


def history_text(command: str, exit_code: int | None, seconds: float, output: str) -> str:
    """The command and its result as codex puts a shell command of the user's into the
    model's history."""
    code = "none (it did not run to its end)" if exit_code is None else str(exit_code)
    return (
        f"<user_shell_command>\n<command>\n{command}\n</command>\n<result>\n"
        f"Exit code: {code}\nDuration: {seconds:.4f} seconds\nOutput:\n"
        f"{clipped_output(output)}\n</result>\n</user_shell_command>"
    )


class SandboxedShell:
    def __init__(self, core: Core) -> None:
        self._core = core

    async def start(self, conversation: Conversation, command: str) -> CommandResult:
        """Run `command` under the conversation's sandbox; it shows as a turn of its own."""
        assert conversation.thread_id is not None
        router = self._core.router
        run = ShellRun(command, conversation.id, conversation.thread_id, conversation.cwd)
        run.reserved_absent = await absent(self._core.server, conversation.cwd)
        router.shell_runs.add(run)
        thread = run.thread_id
        turn = wire.Turn(id=run.turn_id, status="inProgress")
        router.handle(wire.TurnStarted(thread_id=thread, turn=turn))
        router.handle(run.item_notification(wire.ItemStarted, "inProgress"))
        params = wire.CommandExecParams(
            command=[*SHELL, command],
            cwd=conversation.cwd,
            sandbox_policy=sandbox_policy(conversation, self._core.settings),
            timeout_ms=SHELL_TIMEOUT_MS,
            process_id=run.process_id,
            stream_stdout_stderr=True,
        )
        self._core.tasks.start_soon(self._run, run, params)
        return CommandResult(True, "Running, in the conversation's sandbox.")

    async def _run(self, run: ShellRun, params: wire.CommandExecParams) -> None:
        router = self._core.router
        server = self._core.server
        exit_code: int | None = None
        problem = ""
        try:
            ran = await server.command_exec(params)
        except RpcError as error:
            problem = f"codex could not run the command: {error}"
        except ConnectionClosed:
            router.shell_runs.remove(run)
            return  # codex went away: the link says so, and settles the conversation's turn
        else:
            exit_code = ran.exit_code
            for rest in (ran.stdout, ran.stderr):  # what was not streamed, if any
                if rest:
                    run.take(
                        wire.CommandExecOutput(
                            process_id=run.process_id,
                            stream="rest",
                            delta_base64=base64.b64encode(rest.encode()).decode(),
                        )
                    )
        finally:
            router.shell_runs.remove(run)
        status = "completed" if exit_code == 0 else "failed"
        turn_status = "interrupted" if run.stopped else "failed" if problem else "completed"
        thread, turn_id = run.thread_id, run.turn_id
        router.handle(run.item_notification(wire.ItemCompleted, status, exit_code))
        conversation = self._core.conversations.get(run.conversation_id)
        if problem:
            self._core.notices.say(conversation, "error", problem)
        elif run.cut:
            self._core.notices.say(
                conversation, "warning", "codex cut the command's output at its limit."
            )
        if run.stopped:
            await remove_left(server, run.reserved_absent)
        if exit_code is not None:
            await self._into_history(conversation, run, exit_code)
        turn = wire.Turn(id=turn_id, status=turn_status, duration_ms=round(run.seconds * 1000))
        router.handle(wire.TurnCompleted(thread_id=thread, turn=turn))

    async def _into_history(
        self, conversation: Conversation, run: ShellRun, exit_code: int
    ) -> None:
        """The command and its result, into what the model sees of the thread."""
        text = history_text(run.command, exit_code, run.seconds, run.output)
        message = {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": text}],
        }
        try:
            await self._core.server.thread_inject_items(
                wire.ThreadInjectItemsParams(thread_id=run.thread_id, items=[message])
            )
        except (RpcError, ConnectionClosed) as error:
            self._core.notices.say(
                conversation,
                "warning",
                f"The command ran, but codex did not take its output into the history ({error}): "
                "the model will not see it.",
            )
