"""What the engine writes to the store: conversations as they change, every submission's state,
requests and their outcomes (never a secret answer), and a bounded trace per turn."""

from __future__ import annotations

import json
import time

from engine.conversations.conversation import Conversation, Submission
from engine.events import (
    EngineEvent,
    InteractionRequested,
    InteractionResolved,
    ItemCompleted,
    ItemDelta,
    TurnCompleted,
)
from engine.protocol import AgentMessageItem
from engine.records.recording import event_to_json
from engine.records.store import Store
from engine.records.trace import Redactor

UNANSWERED = "codex-deck stopped before it was answered"


class Journal:
    """Writes to `store`, or nowhere when there is none."""

    def __init__(self, store: Store | None, trace_limit: int, redact: Redactor) -> None:
        self.store = store
        self._trace_limit = trace_limit
        self._traced: dict[tuple[str, str | None], int] = {}
        self._streaming: dict[tuple[str, str, str], list[str]] = {}
        """The text so far of each answer streaming, by (conversation, item, turn)."""
        self._redact = redact
        """Known secrets (and anything shaped like an API key) never reach the store."""

    def conversation(self, conversation: Conversation) -> None:
        if self.store is None:
            return
        now = time.time()
        self.store.put(
            "INSERT INTO conversations (id, title, cwd, thread_id, generation, archived, "
            "plan_mode, approval_policy, sandbox, model, reasoning_effort, created_at, "
            "updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (id) DO UPDATE SET "
            "title = excluded.title, cwd = excluded.cwd, thread_id = excluded.thread_id, "
            "generation = excluded.generation, archived = excluded.archived, "
            "plan_mode = excluded.plan_mode, approval_policy = excluded.approval_policy, "
            "sandbox = excluded.sandbox, model = excluded.model, "
            "reasoning_effort = excluded.reasoning_effort, updated_at = excluded.updated_at",
            (
                conversation.id,
                conversation.title,
                conversation.cwd,
                conversation.thread_id,
                conversation.generation,
                conversation.archived,
                conversation.plan_mode,
                conversation.approval_policy,
                conversation.sandbox,
                conversation.model,
                conversation.reasoning_effort,
                now,
                now,
            ),
        )
        if conversation.thread_id is not None:
            self.store.put(
                "INSERT OR IGNORE INTO threads (conversation_id, generation, thread_id, "
                "created_at) VALUES (?, ?, ?, ?)",
                (conversation.id, conversation.generation, conversation.thread_id, now),
            )

    def submission(self, submission: Submission) -> None:
        if self.store is None:
            return
        kept = self._redact(submission.text)
        self.store.put(
            "INSERT INTO submissions (id, conversation_id, generation, text, mode, state, "
            "turn_id, created_at, updated_at, images, secret) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (id) DO UPDATE SET state = excluded.state, "
            "turn_id = excluded.turn_id, updated_at = excluded.updated_at",
            (
                submission.id,
                submission.conversation_id,
                submission.generation,
                kept,
                submission.mode,
                submission.state,
                submission.turn_id,
                submission.created_at,
                time.time(),
                json.dumps(list(submission.images)),
                kept != submission.text,
            ),
        )

    def close_unanswered(self, conversation_id: str) -> None:
        """Requests left waiting for the user when codex-deck stopped: closed unanswered."""
        if self.store is None:
            return
        self.store.put(
            "UPDATE interactions SET state = 'expired', decision = ?, updated_at = ? "
            "WHERE state = 'pending' AND conversation_id = ?",
            (UNANSWERED, time.time(), conversation_id),
        )

    def forget(self, submissions: list[Submission]) -> None:
        """Queued submissions the user dropped (they were never sent)."""
        if self.store is None:
            return
        for submission in submissions:
            self.store.put("DELETE FROM submissions WHERE id = ?", (submission.id,))

    async def sent(self, submission: Submission) -> str | None:
        """Record that `submission` is about to go out, and wait until that is on disk; why
        not, when the store refused it (then it must not go out: after a crash, nothing
        would say it had)."""
        self.submission(submission)
        if self.store is None or await self.store.flush():
            return None
        return self.store.problem or "the store refused the write"

    def event(self, event: EngineEvent, turn_id: str | None) -> None:
        """An emitted event: requests and outcomes, and the trace (deltas are left out: the
        completed item carries the whole text; of an answer, the text so far is kept until
        it completes, to be shown as cut off if it never does)."""
        if self.store is None or event.conversation_id is None:
            return
        if isinstance(event, ItemDelta):
            if event.kind == "agent_message":
                self._streamed(self.store, event.conversation_id, event)
            return
        if isinstance(event, ItemCompleted):
            self._completed(self.store, event.conversation_id, event)
        elif isinstance(event, TurnCompleted):
            for ended in [k for k in self._streaming if k[2] == event.turn_id]:
                del self._streaming[ended]
                if event.status == "completed":  # cut short by a steer: the turn went on
                    self._forget_partial(self.store, ended[0], ended[1])
        if isinstance(event, InteractionRequested):
            info = event.interaction
            self.store.put(
                "INSERT OR REPLACE INTO interactions (id, conversation_id, kind, state, "
                "decision, created_at, updated_at) VALUES (?, ?, ?, 'pending', NULL, ?, ?)",
                (info.id, info.conversation_id, info.kind, event.at, event.at),
            )
        elif isinstance(event, InteractionResolved):
            self.store.put(
                "UPDATE interactions SET state = ?, decision = ?, updated_at = ? WHERE id = ?",
                (event.outcome, event.detail, event.at, event.interaction_id),
            )
        key = (event.conversation_id, turn_id)
        kept = self._traced.get(key, 0)
        if kept >= self._trace_limit:
            return
        self._traced[key] = kept + 1
        self.store.put(
            "INSERT INTO trace (conversation_id, turn_id, at, event) VALUES (?, ?, ?, ?)",
            (
                event.conversation_id,
                turn_id,
                event.at,
                self._redact(json.dumps(event_to_json(event), ensure_ascii=False)),
            ),
        )

    def _streamed(self, store: Store, conversation_id: str, delta: ItemDelta) -> None:
        key = (conversation_id, delta.item_id, delta.turn_id)
        parts = self._streaming.setdefault(key, [])
        parts.append(delta.text)
        store.put_latest(
            ("partial", conversation_id, delta.item_id),
            lambda: (
                "INSERT INTO partials (conversation_id, turn_id, item_id, text, at) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT (conversation_id, item_id) "
                "DO UPDATE SET text = excluded.text",
                (
                    conversation_id,
                    delta.turn_id,
                    delta.item_id,
                    self._redact("".join(parts)),
                    delta.at,
                ),
            ),
        )

    def _completed(self, store: Store, conversation_id: str, event: ItemCompleted) -> None:
        """An answer that completed with its text needs no partial text kept any more."""
        item = event.item
        if not isinstance(item, AgentMessageItem) or not item.text:
            return
        self._streaming.pop((conversation_id, item.id, event.turn_id), None)
        self._forget_partial(store, conversation_id, item.id)

    @staticmethod
    def _forget_partial(store: Store, conversation_id: str, item_id: str) -> None:
        delete = "DELETE FROM partials WHERE conversation_id = ? AND item_id = ?"
        store.put_latest(
            ("partial", conversation_id, item_id), lambda: (delete, (conversation_id, item_id))
        )
