"""/review: codex reviews code in the conversation (the uncommitted changes, against a base
branch, a commit, or as the user's own instructions say) and answers with findings, which are
read back out of its review text: priority, file, lines and what is wrong."""

from __future__ import annotations

import re
from typing import Any

import msgspec

from engine import protocol as wire
from engine.conversations.core import Core
from engine.conversations.restore import Restorer
from engine.conversations.user_turns import refusal
from engine.errors import ConnectionClosed, RpcError
from engine.results import CommandResult

_FINDING = re.compile(r"^- \[P(\d)\] (.+?) — (.+?):(\d+)(?:-(\d+))?$")


class Finding(msgspec.Struct, frozen=True):
    priority: int
    """0 (most urgent) to 3."""
    title: str
    path: str
    start: int
    end: int
    body: str


def findings_of(review: str) -> tuple[Finding, ...]:
    """The findings in codex's review text (`- [P1] title — path:1-2` and the lines under it,
    indented)."""
    found: list[Finding] = []
    lines = review.splitlines()
    for at, line in enumerate(lines):
        head = _FINDING.match(line)
        if head is None:
            continue
        body = []
        for below in lines[at + 1 :]:
            if below.strip() and not below.startswith("  "):
                break
            body.append(below.strip())
        start = int(head.group(4))
        finding = Finding(
            priority=int(head.group(1)),
            title=head.group(2),
            path=head.group(3),
            start=start,
            end=int(head.group(5) or start),
            body="\n".join(body).strip(),
        )
        found.append(finding)
    return tuple(found)


def review_target(how: str, what: str) -> dict[str, Any]:
    if how == "base":
        return {"type": "baseBranch", "branch": what}
    if how == "commit":
        return {"type": "commit", "sha": what}
    if how == "custom":
        return {"type": "custom", "instructions": what}
    return {"type": "uncommittedChanges"}


class Reviews:
    def __init__(self, core: Core, restorer: Restorer) -> None:
        self._core = core
        self._restorer = restorer

    async def start(self, conversation_id: str, how: str, what: str = "") -> CommandResult:
        """Start a review `how` says (uncommitted, base, commit or custom); refused while a turn
        runs, and outside a git checkout (for what git knows)."""
        conversation = self._core.conversations.get(conversation_id)
        notices = self._core.notices
        refused = refusal(self._core, conversation, "reviewed")
        if refused is not None:
            return refused
        if conversation.thread_id is None:
            return notices.failed(conversation.id, "This conversation has no thread yet.")
        await self._restorer.restored()
        server = self._core.server
        try:
            if how != "custom":
                inside = await server.command_exec(
                    wire.CommandExecParams(
                        command=["git", "rev-parse", "--is-inside-work-tree"],
                        cwd=conversation.cwd,
                        sandbox_policy={"type": "readOnly"},
                        timeout_ms=30_000,
                    )
                )
                if inside.exit_code != 0:
                    return notices.failed(
                        conversation.id,
                        f"/review needs a git checkout, and {conversation.cwd} is not one "
                        "(/review TEXT reviews as your own instructions say).",
                    )
            params = wire.ReviewStartParams(
                thread_id=conversation.thread_id, target=review_target(how, what)
            )
            await server.review_start(params)
        except (RpcError, ConnectionClosed) as error:
            return notices.failed(conversation.id, f"codex could not start the review: {error}")
        return CommandResult(True, "Reviewing.")
