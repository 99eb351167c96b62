"""Pending approvals, questions and forms: their short ids, the answers that fit, the replies.

Anything but an explicit answer is a decline: an interaction that expires, is abandoned, or is
still open when the engine closes is answered with the refusing reply.
"""

from __future__ import annotations

import json
import secrets
import shlex
import time
from typing import Any, Literal

import anyio
import msgspec

from engine.conversations.forms import form_problems
from engine.events import InteractionInfo, InteractionKind
from engine.events import InteractionOutcome as Outcome
from engine.protocol import (
    AcceptWithExecPolicyAmendment,
    ApplyNetworkPolicyAmendment,
    CommandApprovalReply,
    CommandApprovalRequest,
    CommandDecision,
    ElicitationReply,
    ElicitationRequest,
    ExecPolicyAmendment,
    FileChange,
    FileChangeApprovalReply,
    FileChangeApprovalRequest,
    KnownServerRequest,
    NetworkAmendment,
    PermissionsApprovalReply,
    UserInputAnswer,
    UserInputReply,
    UserInputRequest,
    WireModel,
    decline,
)
from engine.transport.rpc import RequestId

ID_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"
"""No 0/o, 1/l/i: ids are read off the screen and typed."""
ID_LENGTH = 4


ApproveScope = Literal["once", "session", "rule", "network"]


class Approve(msgspec.Struct, frozen=True):
    """Accept. `session`: the same again is accepted for the rest of the session; `rule`:
    also save the command-prefix rule codex offers; `network`: save the host rule it offers."""

    scope: ApproveScope = "once"


class Decline(msgspec.Struct, frozen=True):
    """Refuse; the turn goes on."""


class Cancel(msgspec.Struct, frozen=True):
    """Refuse and end the turn."""


class Reply(msgspec.Struct, frozen=True):
    """An answer to a question or form: text, or JSON (an object by question id)."""

    value: Any


Answer = Approve | Decline | Cancel | Reply


class AnswerDoesNotFit(ValueError):
    """The answer is not one this kind of interaction takes."""


class PendingInteraction(msgspec.Struct, eq=False):
    """One interaction and the reply it is waiting for."""

    info: InteractionInfo
    request_id: RequestId
    request: KnownServerRequest
    secret: bool = False
    """An answer to it must never be stored, traced or shown."""
    outcome: Outcome | None = None
    reply: WireModel | None = None
    done: anyio.Event = msgspec.field(default_factory=anyio.Event)

    def resolve(self, reply: WireModel, outcome: Outcome) -> None:
        self.reply = reply
        self.outcome = outcome
        self.done.set()


def describe(
    kind: InteractionKind,
    interaction_id: str,
    conversation_id: str,
    request: KnownServerRequest,
    changes: tuple[FileChange, ...],
) -> InteractionInfo:
    """What the user is shown for a request."""
    common: dict[str, Any] = {
        "id": interaction_id,
        "kind": kind,
        "conversation_id": conversation_id,
        "turn_id": request.turn_id,
        "item_id": getattr(request, "item_id", None),
        "asked_at": time.time(),
    }
    if isinstance(request, CommandApprovalRequest):
        actions = tuple(
            f"{action.type}: {action.path or action.query or action.command}"
            for action in request.command_actions or []
            if action.type != "unknown"
        )
        return InteractionInfo(
            **common,
            command=request.command,
            cwd=request.cwd,
            reason=request.reason,
            actions=actions,
            exec_policy_amendment=tuple(request.proposed_execpolicy_amendment or ()),
            network_hosts=tuple(a.host for a in request.proposed_network_policy_amendments or ()),
        )
    if isinstance(request, FileChangeApprovalRequest):
        return InteractionInfo(**common, reason=request.reason, changes=changes)
    if isinstance(request, UserInputRequest):
        return InteractionInfo(**common, questions=tuple(request.questions))
    if isinstance(request, ElicitationRequest):
        schema = request.requested_schema if isinstance(request.requested_schema, dict) else None
        return InteractionInfo(
            **common,
            server=request.server_name,
            message=request.message,
            url=request.url,
            requested_schema=schema,
        )
    return InteractionInfo(
        **common, cwd=request.cwd, reason=request.reason, permissions=request.permissions
    )


def kind_of(request: KnownServerRequest) -> InteractionKind:
    if isinstance(request, CommandApprovalRequest):
        return "command"
    if isinstance(request, FileChangeApprovalRequest):
        return "file_change"
    if isinstance(request, UserInputRequest):
        return "question"
    if isinstance(request, ElicitationRequest):
        return "elicitation"
    return "permissions"


def reply_for(request: KnownServerRequest, answer: Answer) -> tuple[WireModel, Outcome]:
    """The reply an answer makes, and its outcome.

    Raises:
        AnswerDoesNotFit: saying which answers this kind takes.
    """
    if isinstance(request, CommandApprovalRequest | FileChangeApprovalRequest):
        return _approval_reply(request, answer)
    if isinstance(request, UserInputRequest):
        return _question_reply(request, answer)
    if isinstance(request, ElicitationRequest):
        if isinstance(answer, Reply):
            problems = form_problems(request.requested_schema, answer.value)
            if problems:
                raise AnswerDoesNotFit("; ".join(problems))
            return ElicitationReply(action="accept", content=answer.value), "answered"
        if isinstance(answer, Approve):
            return ElicitationReply(action="accept", content={}), "accepted"
        if isinstance(answer, Cancel):
            return ElicitationReply(action="cancel"), "cancelled"
        return ElicitationReply(action="decline"), "declined"
    if isinstance(answer, Approve) and answer.scope in ("once", "session"):
        for_session = answer.scope == "session"
        scope: Literal["turn", "session"] = "session" if for_session else "turn"
        outcome: Outcome = "accepted_for_session" if for_session else "accepted"
        return PermissionsApprovalReply(permissions=request.permissions, scope=scope), outcome
    if isinstance(answer, Decline):
        return decline(request), "declined"
    raise AnswerDoesNotFit("a permission request takes /approve [session] or /decline")


def _approval_reply(
    request: CommandApprovalRequest | FileChangeApprovalRequest, answer: Answer
) -> tuple[WireModel, Outcome]:
    if isinstance(answer, Reply):
        raise AnswerDoesNotFit("an approval takes /approve [session], /decline or /cancel")
    decision: CommandDecision
    outcome: Outcome
    if isinstance(answer, Approve) and answer.scope in ("rule", "network"):
        return _amendment_reply(request, answer.scope)
    if isinstance(answer, Approve):
        decision, outcome = (
            ("acceptForSession", "accepted_for_session")
            if answer.scope == "session"
            else ("accept", "accepted")
        )
    elif isinstance(answer, Cancel):
        decision, outcome = "cancel", "cancelled"
    else:
        decision, outcome = "decline", "declined"
    if isinstance(request, CommandApprovalRequest):
        return CommandApprovalReply(decision=decision), outcome
    assert isinstance(decision, str)
    return FileChangeApprovalReply(decision=decision), outcome


def _amendment_reply(
    request: CommandApprovalRequest | FileChangeApprovalRequest, scope: str
) -> tuple[WireModel, Outcome]:
    if not isinstance(request, CommandApprovalRequest):
        raise AnswerDoesNotFit("only a command approval can save a rule")
    if scope == "rule":
        prefix = request.proposed_execpolicy_amendment
        if not prefix:
            raise AnswerDoesNotFit("codex offered no rule for this command")
        amendment = ExecPolicyAmendment(execpolicy_amendment=list(prefix))
        decision: CommandDecision = AcceptWithExecPolicyAmendment(
            accept_with_execpolicy_amendment=amendment
        )
        return CommandApprovalReply(decision=decision), "accepted_with_rule"
    offered = request.proposed_network_policy_amendments
    if not offered:
        raise AnswerDoesNotFit("codex offered no network rule for this command")
    network = ApplyNetworkPolicyAmendment(
        apply_network_policy_amendment=NetworkAmendment(network_policy_amendment=offered[0])
    )
    return CommandApprovalReply(decision=network), "accepted_with_rule"


def _question_reply(request: UserInputRequest, answer: Answer) -> tuple[WireModel, Outcome]:
    if isinstance(answer, Decline):
        return decline(request), "declined"
    if not isinstance(answer, Reply):
        raise AnswerDoesNotFit("a question takes /respond ID TEXT (or JSON) or /decline")
    ids = [question.id for question in request.questions]
    value = answer.value
    if isinstance(value, dict):
        unknown = sorted(set(value) - set(ids))
        if unknown:
            raise AnswerDoesNotFit(f"no question {unknown[0]!r} here; the questions are {ids}")
        answers = {qid: _as_list(value[qid]) for qid in ids if qid in value}
    elif len(ids) == 1:
        answers = {ids[0]: _as_list(value)}
    else:
        raise AnswerDoesNotFit(
            f"there are {len(ids)} questions: answer with JSON by question id, e.g. "
            + json.dumps(dict.fromkeys(ids, "…"), ensure_ascii=False)
        )
    reply = UserInputReply(answers={k: UserInputAnswer(answers=v) for k, v in answers.items()})
    return reply, "answered"


def _as_list(value: Any) -> list[str]:
    if isinstance(value, list):
        return [item if isinstance(item, str) else json.dumps(item) for item in value]
    return [value if isinstance(value, str) else json.dumps(value)]


class Interactions:
    """Every interaction of an engine, pending or not, by short id."""

    def __init__(self) -> None:
        self._all: dict[str, PendingInteraction] = {}

    def open(
        self,
        conversation_id: str,
        request_id: RequestId,
        request: KnownServerRequest,
        changes: tuple[FileChange, ...] = (),
    ) -> PendingInteraction:
        interaction_id = self._new_id()
        info = describe(kind_of(request), interaction_id, conversation_id, request, changes)
        secret = isinstance(request, UserInputRequest) and any(
            question.is_secret for question in request.questions
        )
        pending = PendingInteraction(info, request_id, request, secret=secret)
        self._all[interaction_id] = pending
        return pending

    def find(self, reference: str) -> PendingInteraction:
        """The interaction with this id or unique id prefix.

        Raises:
            KeyError: with a message saying what is wrong with the reference.
        """
        reference = reference.strip().lower()
        if reference in self._all:
            return self._all[reference]
        matches = sorted(i for i in self._all if reference and i.startswith(reference))
        if len(matches) == 1:
            return self._all[matches[0]]
        if matches:
            raise KeyError(f"{reference!r} could be any of {', '.join(matches)}")
        raise KeyError(f"there is no interaction {reference!r}")

    def pending(self, conversation_id: str | None = None) -> list[PendingInteraction]:
        return [
            p
            for p in self._all.values()
            if p.outcome is None
            and (conversation_id is None or p.info.conversation_id == conversation_id)
        ]

    def by_request(self, request_id: RequestId) -> PendingInteraction | None:
        for pending in self.pending():
            if pending.request_id == request_id:
                return pending
        return None

    def _new_id(self) -> str:
        while True:
            candidate = "".join(secrets.choice(ID_ALPHABET) for _ in range(ID_LENGTH))
            clashes = any(i.startswith(candidate) or candidate.startswith(i) for i in self._all)
            if not clashes:
                return candidate


SAVED_RULE = "saved rule:"
"""How a grant that is a rule saved in codex's rules file begins (not the session's alone)."""


def grant_words(info: InteractionInfo, outcome: Outcome) -> str:
    """What an approval that outlives its request allows, in words."""
    if outcome == "accepted_with_rule":
        allowed = shlex.join(info.exec_policy_amendment) or "the host codex asked for"
        return f"{SAVED_RULE} commands starting with `{allowed}`"
    if info.kind == "command":
        return f"this session: `{info.command}`"
    if info.kind == "file_change":
        return "this session: changes to " + ", ".join(c.path for c in info.changes)
    return f"this session: {info.kind}"
