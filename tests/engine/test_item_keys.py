"""Items are named by their turn and codex's id, and numbered when a turn repeats an id."""

from __future__ import annotations

from engine.conversations.item_keys import ItemKeys, item_key, keyed_items
from engine.protocol import AgentMessageItem


def test_an_id_reused_in_every_turn_names_a_new_item_each_turn() -> None:
    keys = ItemKeys()
    assert keys.started("t1", "msg_0") == "t1/msg_0"
    assert keys.streaming("t1", "msg_0") == "t1/msg_0"
    assert keys.completed("t1", "msg_0") == "t1/msg_0"
    assert keys.started("t2", "msg_0") == "t2/msg_0"
    assert keys.streaming("t2", "msg_0") == "t2/msg_0"


def test_an_id_repeated_in_one_turn_is_numbered() -> None:
    keys = ItemKeys()
    for number in (1, 2, 3):
        name = keys.started("t1", "msg_0")
        assert name == item_key("t1", "msg_0", number)
        assert keys.streaming("t1", "msg_0") == name
        assert keys.completed("t1", "msg_0") == name
    assert keys.streaming("t1", "msg_0") == "t1/msg_0#3"  # output that comes after it ended


def test_a_completion_with_no_start_after_one_that_completed_is_a_new_item() -> None:
    keys = ItemKeys()
    assert keys.completed("t1", "msg_0") == "t1/msg_0"
    assert keys.completed("t1", "msg_0") == "t1/msg_0#2"


def test_a_turn_read_back_names_its_items_as_they_were_named_live() -> None:
    items = [AgentMessageItem(id="msg_0", text=str(n)) for n in range(3)]
    assert [item.id for item in keyed_items("t1", items)] == [
        "t1/msg_0",
        "t1/msg_0#2",
        "t1/msg_0#3",
    ]


def test_only_the_latest_turns_are_kept() -> None:
    keys = ItemKeys()
    for turn in ("t1", "t2", "t3"):
        keys.started(turn, "msg_0")
    assert keys.started("t1", "msg_0") == "t1/msg_0"  # t1 was forgotten: named afresh
