"""/goal: what a thread works toward until it is done. Codex keeps the goal and starts turns for
it by itself while it is active; its updates come back as `thread/goal/updated`."""

from __future__ import annotations

from typing import Literal

from engine import protocol as wire
from engine.conversations.core import Core
from engine.conversations.restore import Restorer
from engine.conversations.session import describe_goal
from engine.errors import ConnectionClosed, RpcError
from engine.results import CommandResult
from engine.transport.rpc import METHOD_NOT_FOUND

GoalAction = Literal["show", "set", "clear", "pause", "resume"]
STATUS: dict[GoalAction, wire.GoalStatus] = {"pause": "paused", "resume": "active"}
GOALS_OFF = "goals feature is disabled"
"""What codex answers a goal with when its `features.goals` is off."""


class Goals:
    def __init__(self, core: Core, restorer: Restorer) -> None:
        self._core = core
        self._restorer = restorer

    async def goal(
        self, conversation_id: str, action: GoalAction, objective: str = ""
    ) -> CommandResult:
        """Show, set, clear, pause or resume the conversation's goal."""
        conversation = self._core.conversations.get(conversation_id)
        notices = self._core.notices
        if action == "show":
            if conversation.goal is None:
                return notices.told(conversation, "No goal here; /goal OBJECTIVE sets one.")
            return notices.told(conversation, f"Goal: {describe_goal(conversation.goal)}")
        reason = self._core.link.not_running()
        if reason is not None:
            return notices.failed(conversation.id, f"codex is not running ({reason}).")
        if conversation.thread_id is None:
            return notices.failed(conversation.id, "This conversation has no thread yet.")
        await self._restorer.restored()
        server = self._core.server
        thread = conversation.thread_id
        try:
            if action == "clear":
                await server.thread_goal_clear(wire.ThreadGoalClearParams(thread_id=thread))
                conversation.goal = None
                self._core.router.updated(conversation)
                return notices.told(conversation, "Goal cleared.")
            if action in STATUS and conversation.goal is None:
                return notices.failed(conversation.id, f"No goal to {action}; /goal OBJECTIVE.")
            params = wire.ThreadGoalSetParams(
                thread_id=thread,
                objective=objective if action == "set" else None,
                status=STATUS.get(action, "active"),
            )
            set_goal = await server.thread_goal_set(params)
        except RpcError as error:
            if error.code == METHOD_NOT_FOUND:
                return notices.failed(
                    conversation.id, f"This codex has no goals ({error}); a newer one does."
                )
            if GOALS_OFF in error.message:
                return notices.failed(
                    conversation.id,
                    f"This codex has goals turned off ({error}); `features.goals=true` in its "
                    "config (or codex-deck's [codex] config) turns them on.",
                )
            return notices.failed(conversation.id, f"codex refused the goal: {error}")
        except ConnectionClosed as error:
            return notices.failed(conversation.id, f"codex went away: {error}")
        conversation.goal = set_goal.goal
        self._core.router.updated(conversation)
        said = {"set": "Goal set", "pause": "Goal paused", "resume": "Goal resumed"}[action]
        told = f"{said}: {describe_goal(set_goal.goal)}"
        if set_goal.goal.status == "active":
            told += ". codex works toward it by itself; /goal pause stops that."
        return notices.told(conversation, told)
