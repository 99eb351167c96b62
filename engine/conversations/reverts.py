"""Hunks of a file change taken back: the user accepts a change with some hunks marked (they
are taken back once codex has applied it), or marks hunks of a change applied earlier. Every
file is read first and each marked hunk checked where the change put it; only when all hold
is anything written (through codex, where it runs). Then codex is told which hunks were taken
back and why, in the user's words: in the running turn, else with the next message."""

from __future__ import annotations

from collections.abc import Sequence

from engine.conversations.codex_files import read_text, remove, write_text
from engine.conversations.conversation import Conversation, RevertNote
from engine.conversations.core import Core
from engine.conversations.interactions import Approve
from engine.conversations.turns import Turns
from engine.errors import ConnectionClosed, RpcError
from engine.events import EngineEvent, ItemCompleted, TurnCompleted
from engine.hunks import Hunk, Marks, RevertRefused, described, hunks_of, reverted
from engine.protocol import FileChange, FileChangeItem
from engine.results import CommandResult
from engine.transport.fanout import Subscription


class Reverts:
    """Taking back hunks of the conversations' file changes."""

    def __init__(self, core: Core, turns: Turns) -> None:
        self._core = core
        self._turns = turns

    def accept_with_reverts(self, interaction_id: str, marks: Marks, why: str) -> CommandResult:
        """Accept the file change `interaction_id` asks about; once codex has applied it,
        take back the hunks marked (and tell codex)."""
        try:
            pending = self._core.interactions.find(interaction_id)
        except KeyError as error:
            return CommandResult(False, str(error.args[0]))
        info = pending.info
        conversation = self._core.conversations.get(info.conversation_id)
        if info.kind != "file_change" or info.item_id is None:
            return self._core.notices.failed(
                conversation.id, f"{info.id} is not a file change: it has no hunks to take back."
            )
        wrong = _wrong_marks(info.changes, marks)
        if wrong:
            return self._core.notices.failed(conversation.id, wrong)
        events = self._core.emitter.subscribe()
        answered = self._core.router.requests.respond(info.id, Approve("once"), conversation.id)
        if not answered.ok:
            events.close()
            return answered
        self._core.tasks.start_soon(
            self._once_applied, events, conversation, info.item_id, info.changes, marks, why
        )
        count = sum(len(set(chosen)) for chosen in marks.values())
        return CommandResult(
            True,
            f"{info.id}: accepted; {count} hunk{'s' if count != 1 else ''} marked are taken back "
            "once codex has applied the change.",
        )

    async def _once_applied(
        self,
        events: Subscription[EngineEvent],
        conversation: Conversation,
        item_id: str,
        changes: tuple[FileChange, ...],
        marks: Marks,
        why: str,
    ) -> None:
        with events:
            async for event in events:
                if event.conversation_id != conversation.id:
                    continue
                if isinstance(event, ItemCompleted) and event.item.id == item_id:
                    if event.status != "completed":
                        self._core.notices.failed(
                            conversation.id,
                            f"The change was not applied ({event.status}): nothing to take back.",
                        )
                        return
                    break
                if isinstance(event, TurnCompleted):
                    self._core.notices.failed(
                        conversation.id,
                        "The turn ended before the change was applied: nothing was taken back.",
                    )
                    return
            else:
                return
        await self.take_back(conversation, changes, marks, why)

    async def revert_applied(
        self, conversation_id: str, item_id: str, marks: Marks, why: str
    ) -> CommandResult:
        """Take back the hunks marked of the file change `item_id`, applied earlier."""
        conversation = self._core.conversations.get(conversation_id)
        applied = [
            event.item
            for event in self._core.emitter.trace(conversation.id).all_events()
            if isinstance(event, ItemCompleted)
            and isinstance(event.item, FileChangeItem)
            and event.item.id == item_id
            and event.status == "completed"
        ]
        if not applied:
            return self._core.notices.failed(
                conversation.id, "That change was not applied here: there is nothing to take back."
            )
        changes = tuple(applied[-1].changes)
        wrong = _wrong_marks(changes, marks)
        if wrong:
            return self._core.notices.failed(conversation.id, wrong)
        return await self.take_back(conversation, changes, marks, why)

    async def take_back(
        self, conversation: Conversation, changes: Sequence[FileChange], marks: Marks, why: str
    ) -> CommandResult:
        """Take back the hunks marked, all or none; then tell codex."""
        server = self._core.server
        planned: list[tuple[str, str | None]] = []
        """Each file and what it becomes (None: removed)."""
        told: list[str] = []
        try:
            for change in changes:
                chosen = sorted(set(marks.get(change.path, ())))
                if not chosen:
                    continue
                hunks = hunks_of(change)
                picked = [hunks[index] for index in chosen]
                path = change.kind.move_path or change.path
                planned.append((path, await self._becomes(path, change, picked, len(hunks))))
                told.append(described(path, picked))
        except RevertRefused as error:
            return self._core.notices.failed(conversation.id, str(error))
        except (RpcError, ConnectionClosed, UnicodeDecodeError) as error:
            return self._core.notices.failed(
                conversation.id, f"Could not read the files to take back: {error}. Nothing changed."
            )
        done: list[str] = []
        try:
            for path, text in planned:
                if text is None:
                    await remove(server, path)
                else:
                    await write_text(server, path, text)
                done.append(path)
        except (RpcError, ConnectionClosed) as error:
            left = [path for path, _ in planned if path not in done]
            return self._core.notices.failed(
                conversation.id,
                f"Writing {left[0]} failed ({error}): taken back in {', '.join(done) or 'none'}; "
                f"not in {', '.join(left)}.",
            )
        return await self._tell(conversation, told, why, len(done))

    async def _becomes(
        self, path: str, change: FileChange, picked: list[Hunk], of: int
    ) -> str | None:
        """What the file at `path` becomes with `picked` taken back (None: removed).

        Raises:
            RevertRefused: it is not as the change left it.
            RpcError, ConnectionClosed, UnicodeDecodeError: it could not be read.
        """
        kind = change.kind.type
        if kind == "delete":
            try:
                await read_text(self._core.server, path)
            except RpcError:
                return "\n".join(picked[0].old_lines) + "\n"
            raise RevertRefused(f"{path} is there again: its deletion is not taken back.")
        content = await read_text(self._core.server, path)
        if kind == "add" and len(picked) == of:
            if content.split("\n")[: len(picked[0].new_lines)] != list(picked[0].new_lines):
                raise RevertRefused(
                    f"{path} changed since codex added it: it is not removed. Nothing was "
                    "taken back."
                )
            return None
        return reverted(path, content, picked)

    async def _tell(
        self, conversation: Conversation, told: list[str], why: str, files: int
    ) -> CommandResult:
        """Tell codex what was taken back and why: in the running turn if there is one, else
        with the next message."""
        text = (
            "I took back these hunks of your change (the files now hold the rest of it):\n"
            + "\n".join(told)
            + (f"\nWhy: {why.strip()}" if why.strip() else "")
        )
        plural = "s" if files != 1 else ""
        running = conversation.state in ("running", "waiting") and conversation.turn_id
        if running:
            sent = await self._turns.send(conversation, text, "auto")
            if sent.how == "queued":  # the turn ended as it was steered: the next one tells
                return self._core.notices.told(
                    conversation,
                    f"Took back hunks in {files} file{plural}; codex is told in the next turn.",
                )
            if sent.accepted:
                return self._core.notices.told(
                    conversation, f"Took back hunks in {files} file{plural}; codex is told now."
                )
        label = f"taken back: hunks in {files} file{plural}"
        conversation.context.append(RevertNote(text, label))
        self._core.router.updated(conversation)
        return self._core.notices.told(
            conversation,
            f"Took back hunks in {files} file{plural}; codex is told with your next message.",
        )


def _wrong_marks(changes: Sequence[FileChange], marks: Marks) -> str | None:
    """What is wrong with `marks` for `changes` (None: nothing)."""
    if not any(marks.values()):
        return "No hunk is marked to take back."
    by_path = {change.path: change for change in changes}
    for path, chosen in marks.items():
        change = by_path.get(path)
        if change is None:
            return f"{path} is not part of that change."
        count = len(hunks_of(change))
        if any(not 0 <= index < count for index in chosen):
            return f"{path} has {count} hunk{'s' if count != 1 else ''} (0 to {count - 1})."
    return None
