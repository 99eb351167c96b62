"""How a message that was in flight is settled from its thread."""

from __future__ import annotations

from engine.conversations.recovery import settle
from engine.protocol import Thread


def thread(status: str, client_id: str = "m1", error: str | None = None) -> Thread:
    """A thread as `thread/read` sends it, with one turn."""
    turn = {
        "id": "t1",
        "status": status,
        "items": [
            {
                "type": "userMessage",
                "id": "u1",
                "content": [{"type": "text", "text": "hi"}],
                "clientId": client_id,
            },
            {"type": "agentMessage", "id": "a1", "text": "hello"},
        ],
        "error": {"message": error} if error else None,
    }
    return Thread.read({"id": "th", "turns": [turn]})


def test_found_in_a_completed_turn_is_completed() -> None:
    settled = settle("m1", "hi", thread("completed"))
    assert (settled.state, settled.turn_id) == ("completed", "t1")


def test_found_in_a_failed_turn_is_failed_with_why() -> None:
    settled = settle("m1", "hi", thread("failed", error="quota exceeded"))
    assert settled.state == "failed"
    assert "quota exceeded" in settled.explanation


def test_cut_off_or_unfinished_is_unknown_and_offers_resend() -> None:
    for status in ("interrupted", "inProgress"):
        settled = settle("m1", "hi", thread(status))
        assert (settled.state, settled.turn_id) == ("unknown", "t1")
        assert "/resend" in settled.explanation


def test_unfinished_in_a_shared_codex_runs_on_and_is_followed() -> None:
    settled = settle("m1", "hi", thread("inProgress"), shared=True)
    assert (settled.state, settled.turn_id) == ("sent", "t1")
    assert "followed" in settled.explanation
    assert settle("m1", "hi", thread("interrupted"), shared=True).state == "unknown"


def test_not_found_is_unknown() -> None:
    for witness in (thread("completed", client_id="another"), None):
        settled = settle("m1", "a long message " * 10, witness)
        assert (settled.state, settled.turn_id) == ("unknown", None)
        assert "no record" in settled.explanation
        assert "…" in settled.explanation
