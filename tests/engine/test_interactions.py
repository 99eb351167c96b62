"""Interactions: short ids and prefixes, the answers each kind takes, the replies they make."""

from __future__ import annotations

import pytest

from engine.conversations.interactions import (
    ID_ALPHABET,
    AnswerDoesNotFit,
    Approve,
    Cancel,
    Decline,
    Interactions,
    Reply,
    reply_for,
)
from engine.protocol import (
    CommandApprovalRequest,
    ElicitationRequest,
    FileChangeApprovalRequest,
    PermissionsApprovalRequest,
    Question,
    UserInputRequest,
)

COMMAND = CommandApprovalRequest(thread_id="t", turn_id="u", item_id="c1", command="ls")
PATCH = FileChangeApprovalRequest(thread_id="t", turn_id="u", item_id="p1")
ONE_QUESTION = UserInputRequest(
    thread_id="t",
    turn_id="u",
    item_id="q",
    questions=[Question(id="path", question="Which path?")],
)
TWO_QUESTIONS = UserInputRequest(
    thread_id="t",
    turn_id="u",
    item_id="q",
    questions=[Question(id="a", question="A?"), Question(id="b", question="B?", is_secret=True)],
)
FORM = ElicitationRequest(thread_id="t", server_name="docs", mode="form", message="Fill in")
PERMISSIONS = PermissionsApprovalRequest(
    thread_id="t", turn_id="u", item_id="x", cwd="/w", permissions={"network": {"enabled": True}}
)


def test_approvals_map_to_codex_decisions() -> None:
    assert reply_for(COMMAND, Approve())[0].to_wire() == {"decision": "accept"}
    assert reply_for(COMMAND, Approve("session"))[0].to_wire() == {"decision": "acceptForSession"}
    assert reply_for(PATCH, Decline()) == (reply_for(PATCH, Decline())[0], "declined")
    assert reply_for(PATCH, Cancel())[0].to_wire() == {"decision": "cancel"}
    with pytest.raises(AnswerDoesNotFit, match="an approval takes"):
        reply_for(COMMAND, Reply("yes"))


def test_questions_take_text_or_json_by_question_id() -> None:
    reply, outcome = reply_for(ONE_QUESTION, Reply("/tmp/x"))
    assert (reply.to_wire(), outcome) == (
        {"answers": {"path": {"answers": ["/tmp/x"]}}},
        "answered",
    )
    reply, _ = reply_for(TWO_QUESTIONS, Reply({"a": "yes", "b": ["s3cret"]}))
    assert reply.to_wire() == {"answers": {"a": {"answers": ["yes"]}, "b": {"answers": ["s3cret"]}}}
    with pytest.raises(AnswerDoesNotFit, match="there are 2 questions"):
        reply_for(TWO_QUESTIONS, Reply("yes"))
    with pytest.raises(AnswerDoesNotFit, match="no question 'c' here"):
        reply_for(TWO_QUESTIONS, Reply({"c": "?"}))
    with pytest.raises(AnswerDoesNotFit, match="a question takes"):
        reply_for(ONE_QUESTION, Approve())
    assert reply_for(ONE_QUESTION, Decline())[0].to_wire() == {"answers": {}}


def test_forms_and_permissions() -> None:
    assert reply_for(FORM, Reply({"name": "x"}))[0].to_wire() == {
        "action": "accept",
        "content": {"name": "x"},
    }
    assert reply_for(FORM, Cancel())[0].to_wire() == {"action": "cancel", "content": None}
    granted, outcome = reply_for(PERMISSIONS, Approve("session"))
    assert granted.to_wire() == {"permissions": {"network": {"enabled": True}}, "scope": "session"}
    assert outcome == "accepted_for_session"
    assert reply_for(PERMISSIONS, Decline())[0].to_wire() == {"permissions": {}, "scope": "turn"}
    with pytest.raises(AnswerDoesNotFit):
        reply_for(PERMISSIONS, Cancel())


def test_ids_are_short_unambiguous_and_found_by_prefix() -> None:
    interactions = Interactions()
    opened = [interactions.open("c", n, COMMAND) for n in range(200)]
    ids = [p.info.id for p in opened]
    assert len(set(ids)) == 200
    assert all(len(i) == 4 and set(i) <= set(ID_ALPHABET) for i in ids)
    for pending in opened[:20]:
        assert interactions.find(pending.info.id.upper()) is pending
    unique_prefix = next(i[:2] for i in ids if sum(other.startswith(i[:2]) for other in ids) == 1)
    assert interactions.find(unique_prefix).info.id.startswith(unique_prefix)
    with pytest.raises(KeyError, match="there is no interaction 'zzzzz'"):
        interactions.find("zzzzz")
    ambiguous = next(i[:1] for i in ids if sum(o.startswith(i[:1]) for o in ids) > 1)
    with pytest.raises(KeyError, match="could be any of"):
        interactions.find(ambiguous)


def test_a_secret_question_is_marked_secret() -> None:
    interactions = Interactions()
    assert interactions.open("c", 1, TWO_QUESTIONS).secret
    assert not interactions.open("c", 2, ONE_QUESTION).secret


FORM_SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Name", "minLength": 2},
        "age": {"type": "integer", "title": "Age", "minimum": 0},
        "plan": {"type": "string", "enum": ["free", "pro"], "enumNames": ["Free", "Pro"]},
        "agree": {"type": "boolean", "title": "Agree"},
    },
    "required": ["name", "agree"],
}
SIGNUP = ElicitationRequest(
    thread_id="t",
    server_name="accounts",
    mode="form",
    message="Sign up",
    requested_schema=FORM_SCHEMA,
)


def test_a_form_answer_is_checked_against_its_schema_before_it_is_sent() -> None:
    with pytest.raises(AnswerDoesNotFit) as caught:
        reply_for(SIGNUP, Reply({"name": "x", "age": 1.5, "plan": "gold", "extra": 1}))
    assert str(caught.value) == (
        "extra: not a field of this form; Name: must be at least 2 characters; "
        "Age: must be a whole number; plan: must be one of Free, Pro; Agree: required"
    )
    reply, outcome = reply_for(SIGNUP, Reply({"name": "Ada", "agree": True, "plan": "pro"}))
    assert outcome == "answered"
    assert reply.to_wire() == {
        "action": "accept",
        "content": {"name": "Ada", "agree": True, "plan": "pro"},
    }


def test_rules_are_saved_only_when_codex_offered_one() -> None:
    offered = CommandApprovalRequest(
        thread_id="t", turn_id="u", item_id="c", proposed_execpolicy_amendment=["git", "pull"]
    )
    reply, outcome = reply_for(offered, Approve("rule"))
    assert outcome == "accepted_with_rule"
    assert reply.to_wire() == {
        "decision": {"acceptWithExecpolicyAmendment": {"execpolicy_amendment": ["git", "pull"]}}
    }
    with pytest.raises(AnswerDoesNotFit, match="codex offered no rule"):
        reply_for(COMMAND, Approve("rule"))
    with pytest.raises(AnswerDoesNotFit, match="no network rule"):
        reply_for(offered, Approve("network"))
    with pytest.raises(AnswerDoesNotFit, match="only a command approval can save a rule"):
        reply_for(PATCH, Approve("rule"))
