"""The conversation list: a change that keeps every row in its place only relabels rows; one
that moves a conversation to another group lists it there."""

from __future__ import annotations

import pytest
from msgspec.structs import replace
from textual.app import App, ComposeResult

from bench.figures import idle_conversation
from engine.events import ConversationInfo, ConversationState, EngineStatus
from tui.widgets.conversation_list import ConversationList

pytestmark = pytest.mark.anyio


class ListApp(App[None]):
    def compose(self) -> ComposeResult:
        yield ConversationList()


def info(conversation_id: str, state: ConversationState = "running") -> ConversationInfo:
    return replace(
        idle_conversation(conversation_id, f"conversation {conversation_id}"), state=state
    )


def rows(listed: ConversationList) -> list[tuple[str | None, str]]:
    options = [listed.get_option_at_index(n) for n in range(listed.option_count)]
    return [(option.id, str(option.prompt)) for option in options]


async def test_a_new_state_in_the_same_group_relabels_its_row_and_rebuilds_nothing() -> None:
    app = ListApp()
    async with app.run_test():
        listed = app.query_one(ConversationList)
        for conversation_id in ("a", "b"):
            listed.update_conversation(info(conversation_id))
        before = [listed.get_option_at_index(n) for n in range(listed.option_count)]

        listed.update_conversation(info("b", "stopping"))  # still running, as a group

        after = [listed.get_option_at_index(n) for n in range(listed.option_count)]
        assert all(old is new for old, new in zip(before, after, strict=True))
        assert "stopping" in rows(listed)[2][1]
        assert "running" in rows(listed)[1][1]

        listed.update_conversation(info("a", "idle"))

        assert [(key, label.split("\n")[0]) for key, label in rows(listed)] == [
            (None, "RUNNING"),
            ("b", "■ conversation b"),
            (None, "IDLE"),
            ("a", "· conversation a"),
        ]


def told(host: str, status: str, detail: str = "", coming_back: bool = False) -> EngineStatus:
    return EngineStatus(
        seq=1,
        at=0.0,
        conversation_id=None,
        status=status,  # type: ignore[arg-type]
        detail=detail,
        coming_back=coming_back,
        host=host,
    )


async def test_with_hosts_each_is_listed_under_its_name_and_state() -> None:
    app = ListApp()
    async with app.run_test():
        listed = app.query_one(ConversationList)
        for host, status in (("local", "online"), ("box", "starting"), ("gone", "failed")):
            detail = "ssh: connect to host 127.0.0.1 port 9: Connection refused, said at length"
            listed.host_state(told(host, status, detail if host == "gone" else "reaching it"))
        listed.update_conversation(replace(info("b"), host="box"))
        listed.update_conversation(replace(info("a", "idle"), host="local"))
        listed.update_conversation(replace(info("c", "idle"), host="box"))

        assert rows(listed) == [
            (None, "LOCAL ● online"),
            (None, "  IDLE"),
            ("a", "· conversation a\n  idle"),
            (None, "BOX … starting\nreaching it"),
            (None, "  RUNNING"),
            ("b", "▶ conversation b\n  running"),
            (None, "  IDLE"),
            ("c", "· conversation c\n  idle"),
            (None, "GONE ✖ failed\nssh: connect to host 127.0.0.1 port 9: Connection refus…"),
        ]
        assert listed.listed() == ["a", "b", "c"]

        listed.host_state(told("box", "failed", "reconnecting to codex in 2.0 s", True))
        assert rows(listed)[3] == (None, "BOX ✖ reconnecting\nreconnecting to codex in 2.0 s")
