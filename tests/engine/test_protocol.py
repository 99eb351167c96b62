"""Reading the protocol never raises; replies have the exact wire shape codex expects."""

from __future__ import annotations

from typing import Any

import msgspec
from hypothesis import given
from hypothesis import strategies as st

from engine.protocol import (
    AcceptWithExecPolicyAmendment,
    AgentMessageDelta,
    AgentMessageItem,
    CommandApprovalReply,
    CommandApprovalRequest,
    ElicitationReply,
    ExecPolicyAmendment,
    FileChangeApprovalRequest,
    FileChangeItem,
    ItemCompleted,
    ServerNotification,
    TextInput,
    TurnStartParams,
    UnknownItem,
    UnknownNotification,
    UnknownServerRequest,
    UserInputAnswer,
    UserInputReply,
    UserInputRequest,
    decline,
    parse_item,
    parse_notification,
    parse_server_request,
)
from engine.protocol.notifications import NOTIFICATION_TYPES


def read(method: str, params: Any) -> ServerNotification:
    """A notification read from its params, as they come on the wire (JSON text)."""
    return parse_notification(method, msgspec.json.encode(params))


def test_known_notification_is_typed_and_extra_fields_are_ignored() -> None:
    note = read(
        "item/agentMessage/delta",
        {"threadId": "t", "turnId": "u", "itemId": "m", "delta": "Hi", "brandNew": 1},
    )
    assert note == AgentMessageDelta(thread_id="t", turn_id="u", item_id="m", delta="Hi")


def test_item_completed_carries_a_typed_item() -> None:
    note = read(
        "item/completed",
        {
            "threadId": "t",
            "turnId": "u",
            "completedAtMs": 1,
            "item": {
                "type": "fileChange",
                "id": "call-1",
                "status": "completed",
                "changes": [{"path": "/w/a.txt", "kind": {"type": "add"}, "diff": "hello\n"}],
            },
        },
    )
    assert isinstance(note, ItemCompleted)
    assert isinstance(note.item, FileChangeItem)
    assert note.item.changes[0].diff == "hello\n"


def test_unknown_item_type_keeps_the_raw_payload() -> None:
    raw = {"type": "holographicDisplay", "id": "x1", "beams": 3}
    item = parse_item(raw)
    assert item == UnknownItem(type="holographicDisplay", id="x1", raw=raw)


def test_known_item_with_wrong_field_types_becomes_unknown_with_the_problem() -> None:
    item = parse_item({"type": "agentMessage", "id": "m", "text": 42})
    assert isinstance(item, UnknownItem)
    assert item.type == "agentMessage"
    assert item.problem is not None
    assert "text" in item.problem


def test_unknown_method_and_ill_typed_params_become_unknown_notifications() -> None:
    unknown = read("remoteControl/status/changed", {"status": "disabled"})
    assert unknown == UnknownNotification(
        name="remoteControl/status/changed", params={"status": "disabled"}
    )
    broken = read("turn/completed", {"threadId": 5})
    assert isinstance(broken, UnknownNotification)
    assert broken.problem is not None
    assert "threadId" in broken.problem


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(method=st.sampled_from([*NOTIFICATION_TYPES, "no/such"]), params=json_values)
def test_any_json_as_params_never_raises(method: str, params: Any) -> None:
    assert isinstance(read(method, params), ServerNotification)


@given(raw=st.dictionaries(st.sampled_from(["type", "id", "text", "changes"]), json_values))
def test_any_json_as_an_item_never_raises(raw: dict[str, Any]) -> None:
    parse_item(raw)


def test_server_requests_are_typed_and_unknown_ones_kept() -> None:
    request = parse_server_request(
        "item/commandExecution/requestApproval",
        {
            "threadId": "t",
            "turnId": "u",
            "itemId": "call-1",
            "startedAtMs": 1,
            "reason": "Allow writing?",
            "command": "/bin/bash -lc 'echo hi > out.txt'",
            "proposedExecpolicyAmendment": ["/bin/bash", "-lc", "echo hi > out.txt"],
        },
    )
    assert isinstance(request, CommandApprovalRequest)
    assert request.reason == "Allow writing?"
    assert isinstance(parse_server_request("attestation/generate", {}), UnknownServerRequest)


def test_replies_have_the_wire_shape() -> None:
    amendment = AcceptWithExecPolicyAmendment(
        accept_with_execpolicy_amendment=ExecPolicyAmendment(execpolicy_amendment=["ls"])
    )
    assert CommandApprovalReply(decision=amendment).to_wire() == {
        "decision": {"acceptWithExecpolicyAmendment": {"execpolicy_amendment": ["ls"]}}
    }
    assert CommandApprovalReply(decision="acceptForSession").to_wire() == {
        "decision": "acceptForSession"
    }
    assert UserInputReply(answers={"q1": UserInputAnswer(answers=["Yes"])}).to_wire() == {
        "answers": {"q1": {"answers": ["Yes"]}}
    }
    assert ElicitationReply(action="decline").to_wire() == {"action": "decline", "content": None}
    assert TurnStartParams(
        thread_id="t", input=[TextInput(text="hi")], client_user_message_id="c1"
    ).to_wire() == {
        "threadId": "t",
        "input": [{"type": "text", "text": "hi"}],
        "clientUserMessageId": "c1",
    }


def test_the_default_answer_is_always_a_refusal() -> None:
    command = CommandApprovalRequest(thread_id="t", turn_id="u", item_id="i")
    patch = FileChangeApprovalRequest(thread_id="t", turn_id="u", item_id="i")
    question = UserInputRequest(thread_id="t", turn_id="u", item_id="i", questions=[])
    assert decline(command).to_wire() == {"decision": "decline"}
    assert decline(patch).to_wire() == {"decision": "decline"}
    assert decline(question).to_wire() == {"answers": {}}


def test_agent_message_item_defaults() -> None:
    assert parse_item({"type": "agentMessage", "id": "m"}) == AgentMessageItem(id="m")
