"""Threads beyond the conversations in the list: codex's own (made by the Codex CLI, an IDE
or another app-server), opened here as conversations; and the store's archived conversations,
brought back."""

from __future__ import annotations

import uuid
from pathlib import Path

import anyio

from engine import protocol as wire
from engine.conversations.conversation import Conversation
from engine.conversations.core import Core
from engine.conversations.history import describe_thread
from engine.conversations.restore import Restorer
from engine.errors import ConnectionClosed, RpcError
from engine.records.store import StoredConversation
from engine.results import CommandResult

THREADS_LISTED = 20
THREADS_SEARCHED = 200
THREAD_ID_SHOWN = 13
OPEN_HINT = "/open ID makes one a conversation here (a unique start of its id is enough)."


def thread_lines(threads: list[wire.Thread]) -> str:
    """Threads a line each (the start of its id, when, where, how it starts), and how to open
    one."""
    lines = [f"{t.id[:THREAD_ID_SHOWN]}  {describe_thread(t)}" for t in threads]
    return "\n".join([*lines, OPEN_HINT])


class Threads:
    """Codex's threads and the store's archived conversations, made conversations here."""

    def __init__(self, core: Core, restorer: Restorer, cwd: Path) -> None:
        self._core = core
        self._restorer = restorer
        self._cwd = cwd

    async def unarchive(self, reference: str) -> CommandResult:
        """Bring back an archived conversation of the store (by id, or a unique prefix)."""
        if self._core.journal.store is None:
            return self._core.notices.failed(
                None, "Nothing is archived: this codex-deck keeps no store."
            )
        found = [c for c in await self.archived() if c.id.startswith(reference)]
        if len(found) != 1:
            how = "No archived conversation's" if not found else "More than one archived"
            return self._core.notices.failed(
                None, f"{how} id starts with {reference!r}; /unarchive lists them."
            )
        conversation = await self._restorer.unarchive(found[0])
        return CommandResult(
            True, f"Brought back {conversation.title!r}.", conversation_id=conversation.id
        )

    async def archived(self) -> list[StoredConversation]:
        """The store's archived conversations (none without a store)."""
        store = self._core.journal.store
        if store is None:
            return []
        loaded = await anyio.to_thread.run_sync(store.load)
        return [c for c in loaded.conversations if c.archived]

    async def codex_threads(
        self, limit: int = THREADS_LISTED, *, indexed: bool = True
    ) -> list[wire.Thread]:
        """Codex's threads in this CODEX_HOME that no conversation here follows, newest first
        (made by the Codex CLI, an IDE, or another app-server).

        `indexed`: from codex's index of its threads alone, in milliseconds however many there
        are; else codex reads the rollout file of each thread listed too (and repairs its index
        from them), which finds a thread whose file came from elsewhere (copied in, synced)
        but takes milliseconds a thread, more for long ones.
        """
        followed = {c.thread_id for c in self._core.conversations.all()}
        params = wire.ThreadListParams(
            limit=limit,
            sort_key="updated_at",
            source_kinds=wire.TOP_LEVEL_SOURCES,
            use_state_db_only=indexed or None,
        )
        listed = await self._core.server.call("thread/list", params, wire.ThreadListResult)
        return [thread for thread in listed.data if thread.id not in followed]

    async def listed_again(self, conversation: Conversation, shown: list[wire.Thread]) -> None:
        """List codex's threads again from their rollout files (which repairs codex's index)
        and, when that finds threads the list `shown` from the index did not have, say the
        new list. Said nothing when codex cannot list them: the list was shown."""
        try:
            scanned = await self.codex_threads(indexed=False)
        except (RpcError, ConnectionClosed):
            return
        if {t.id for t in scanned} - {t.id for t in shown}:
            self._core.notices.say(
                conversation,
                "info",
                "codex's rollout files hold threads its index did not list yet:\n"
                + thread_lines(scanned),
            )

    async def open_thread(self, reference: str) -> CommandResult:
        """Make a Codex thread (by id, or a unique prefix of one from `codex_threads` or of
        a sub-agent's) a conversation here: resumed, with its history."""
        wanted = reference.strip()
        try:
            found = await self._matching(wanted, indexed=True) or await self._matching(
                wanted, indexed=False
            )
        except (RpcError, ConnectionClosed) as error:
            return self._core.notices.failed(None, f"codex could not list its threads: {error}")
        if len(found) != 1 or not wanted:
            which = "no thread" if not found else f"{len(found)} threads"
            return self._core.notices.failed(
                None, f"{which} of codex's start with {reference!r}; /threads lists them"
            )
        [(thread_id, title, cwd)] = found
        conversation = Conversation(
            id=uuid.uuid4().hex[:12], title=title[:60], cwd=cwd or str(self._cwd)
        )
        self._core.conversations.add(conversation)
        self._core.conversations.bind(conversation, thread_id)
        if not await self._restorer.resume(conversation):
            return CommandResult(
                False, f"codex could not resume thread {thread_id}.", conversation.id
            )
        self._core.router.updated(conversation)
        return CommandResult(True, f"Opened {conversation.title!r} from codex.", conversation.id)

    async def _matching(self, wanted: str, *, indexed: bool) -> list[tuple[str, str, str | None]]:
        """Codex's threads (newest first) and sub-agents whose id starts with `wanted`: id,
        title, working directory."""
        candidates = await self.codex_threads(limit=THREADS_SEARCHED, indexed=indexed)
        found = [
            (t.id, (t.name or t.preview or "Codex thread").strip().splitlines()[0], t.cwd)
            for t in candidates
            if t.id.startswith(wanted)
        ]
        found += [
            (thread, f"Sub-agent {thread[:13]} of {parent.title}", parent.cwd)
            for thread, parent in self._core.conversations.sub_agents()
            if thread.startswith(wanted) and self._core.conversations.current(thread) is None
        ]
        return found
