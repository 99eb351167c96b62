"""What quitting would lose, as the question asks it: with hosts, a request waiting on a
listening host is not declined (it waits there for the next client); one on the local codex
or an ssh host is."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import cast

from msgspec.structs import replace

from bench.figures import idle_conversation
from engine.events import ConversationInfo, InteractionInfo
from engine.frontend import Backend
from tui.screens.confirm import quitting_loses


@dataclass
class Waiting:
    infos: list[ConversationInfo]
    pending: list[InteractionInfo] = field(default_factory=list)

    def conversations(self) -> list[ConversationInfo]:
        return self.infos

    def pending_interactions(self) -> list[InteractionInfo]:
        return self.pending


def asked_in(conversation_id: str) -> InteractionInfo:
    return InteractionInfo(
        id=f"r-{conversation_id}",
        kind="command",
        conversation_id=conversation_id,
        turn_id="t",
        item_id="i",
    )


def test_only_requests_that_quitting_declines_are_counted() -> None:
    infos = [replace(idle_conversation(name, name), host=name) for name in ("local", "sock", "box")]
    backend = Waiting(infos, [asked_in("sock")])
    assert quitting_loses(cast("Backend", backend), "", False, ["sock"]) == []
    backend.pending.append(asked_in("local"))
    assert quitting_loses(cast("Backend", backend), "", False, ["sock"]) == [
        "1 request waits for your answer; quitting declines it."
    ]
    backend.pending.append(asked_in("box"))
    assert quitting_loses(cast("Backend", backend), "", False, ["sock"]) == [
        "2 requests wait for your answer; quitting declines them."
    ]
    assert quitting_loses(cast("Backend", backend), "", True) == []
