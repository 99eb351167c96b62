"""The names of codex's file-search sessions: one per conversation, for its `@` mentions."""

from __future__ import annotations

SESSION_PREFIX = "files-"


def session_of(conversation_id: str) -> str:
    return SESSION_PREFIX + conversation_id


def conversation_of(session_id: str) -> str | None:
    """The conversation whose `@` search a session is (None: not one of codex-deck's)."""
    if not session_id.startswith(SESSION_PREFIX):
        return None
    return session_id.removeprefix(SESSION_PREFIX)
