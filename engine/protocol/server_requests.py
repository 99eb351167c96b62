"""Server→client requests (approvals, questions, forms) and the replies codex-deck sends.

`parse_server_request` never raises: an unknown method, or params that do not fit, become
an `UnknownServerRequest`; the engine answers those with a refusal, never an approval.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

import msgspec

from engine.protocol.base import ValidationError, WireModel, describe_invalid
from engine.protocol.items import CommandAction

Decision = Literal["accept", "acceptForSession", "decline", "cancel"]
"""The plain decisions every approval takes; `cancel` also ends the turn."""


class ServerRequestParams(WireModel, kw_only=True):
    """The params of a request from the server; `method` is its JSON-RPC method."""

    method: ClassVar[str] = ""


class NetworkPolicyAmendment(WireModel, kw_only=True):
    """A network rule codex proposes to remember: allow or deny a host."""

    schema_name = "NetworkPolicyAmendment"
    host: str
    action: str


class NetworkApprovalContext(WireModel, kw_only=True):
    """The network access a command asks for."""

    schema_name = "NetworkApprovalContext"
    host: str
    protocol: str


class CommandApprovalRequest(ServerRequestParams, kw_only=True):
    """Codex asks whether it may run a command."""

    method = "item/commandExecution/requestApproval"
    schema_name = "CommandExecutionRequestApprovalParams"
    thread_id: str
    turn_id: str
    item_id: str
    approval_id: str | None = None
    command: str | None = None
    cwd: str | None = None
    reason: str | None = None
    command_actions: list[CommandAction] | None = None
    proposed_execpolicy_amendment: list[str] | None = None
    proposed_network_policy_amendments: list[NetworkPolicyAmendment] | None = None
    network_approval_context: NetworkApprovalContext | None = None


class FileChangeApprovalRequest(ServerRequestParams, kw_only=True):
    """Codex asks whether it may apply a patch (the diff is on the `fileChange` item)."""

    method = "item/fileChange/requestApproval"
    schema_name = "FileChangeRequestApprovalParams"
    thread_id: str
    turn_id: str
    item_id: str
    reason: str | None = None
    grant_root: str | None = None


class QuestionOption(WireModel, kw_only=True):
    schema_name = "ToolRequestUserInputOption"
    label: str
    description: str = ""


class Question(WireModel, kw_only=True):
    """One question of a `request_user_input` form."""

    schema_name = "ToolRequestUserInputQuestion"
    id: str
    header: str = ""
    question: str
    is_other: bool = False
    """Free text is allowed besides the options."""
    is_secret: bool = False
    """The answer must be masked on screen and never stored."""
    options: list[QuestionOption] | None = None


class UserInputRequest(ServerRequestParams, kw_only=True):
    """The agent asks the user one or more questions."""

    method = "item/tool/requestUserInput"
    schema_name = "ToolRequestUserInputParams"
    thread_id: str
    turn_id: str
    item_id: str
    questions: list[Question]
    is_blocking: bool = True
    auto_resolution_ms: int | None = None


class ElicitationRequest(ServerRequestParams, kw_only=True):
    """An MCP server asks for a form to be filled or a URL to be visited."""

    method = "mcpServer/elicitation/request"
    schema_name = "McpServerElicitationRequestParams"
    thread_id: str
    server_name: str
    turn_id: str | None = None
    mode: str | None = None
    message: str | None = None
    requested_schema: Any = None
    url: str | None = None
    elicitation_id: str | None = None
    meta: Any = msgspec.field(default=None, name="_meta")


class PermissionsApprovalRequest(ServerRequestParams, kw_only=True):
    """Codex asks for wider file-system or network permissions."""

    method = "item/permissions/requestApproval"
    schema_name = "PermissionsRequestApprovalParams"
    thread_id: str
    turn_id: str
    item_id: str
    cwd: str
    permissions: dict[str, Any]
    reason: str | None = None


class UnknownServerRequest(ServerRequestParams, kw_only=True):
    """A request codex-deck does not model (or could not read)."""

    name: str
    params: Any = None
    problem: str | None = None


KnownServerRequest = (
    CommandApprovalRequest
    | FileChangeApprovalRequest
    | UserInputRequest
    | ElicitationRequest
    | PermissionsApprovalRequest
)

SERVER_REQUEST_TYPES: dict[str, type[KnownServerRequest]] = {
    model.method: model
    for model in (
        CommandApprovalRequest,
        FileChangeApprovalRequest,
        UserInputRequest,
        ElicitationRequest,
        PermissionsApprovalRequest,
    )
}


def parse_server_request(method: str, params: Any) -> KnownServerRequest | UnknownServerRequest:
    """Read one server request's params; never raises."""
    model = SERVER_REQUEST_TYPES.get(method)
    if model is None:
        return UnknownServerRequest(name=method, params=params)
    try:
        return model.read(params)
    except ValidationError as error:
        return UnknownServerRequest(name=method, params=params, problem=describe_invalid(error))


class ExecPolicyAmendment(WireModel, kw_only=True):
    execpolicy_amendment: list[str] = msgspec.field(name="execpolicy_amendment")


class AcceptWithExecPolicyAmendment(WireModel, kw_only=True):
    """Accept, and remember a rule that lets matching commands run without asking."""

    accept_with_execpolicy_amendment: ExecPolicyAmendment


class NetworkAmendment(WireModel, kw_only=True):
    network_policy_amendment: NetworkPolicyAmendment = msgspec.field(
        name="network_policy_amendment"
    )


class ApplyNetworkPolicyAmendment(WireModel, kw_only=True):
    """Answer a network request by remembering a rule for its host."""

    apply_network_policy_amendment: NetworkAmendment


CommandDecision = Decision | AcceptWithExecPolicyAmendment | ApplyNetworkPolicyAmendment


class CommandApprovalReply(WireModel, kw_only=True):
    schema_name = "CommandExecutionRequestApprovalResponse"
    decision: CommandDecision


class FileChangeApprovalReply(WireModel, kw_only=True):
    schema_name = "FileChangeRequestApprovalResponse"
    decision: Decision


class UserInputAnswer(WireModel, kw_only=True):
    schema_name = "ToolRequestUserInputAnswer"
    answers: list[str]


class UserInputReply(WireModel, kw_only=True):
    """Answers by question id."""

    schema_name = "ToolRequestUserInputResponse"
    answers: dict[str, UserInputAnswer]


class ElicitationReply(WireModel, kw_only=True):
    schema_name = "McpServerElicitationRequestResponse"
    action: Literal["accept", "decline", "cancel"]
    content: Any = None

    def to_wire(self) -> dict[str, Any]:
        """Always carries `content`, null when declining or cancelling."""
        return {"action": self.action, "content": self.content}


class PermissionsApprovalReply(WireModel, kw_only=True):
    """The permissions granted (a subset of those asked) and for how long."""

    schema_name = "PermissionsRequestApprovalResponse"
    permissions: dict[str, Any]
    scope: Literal["turn", "session"] = "turn"


def decline(params: KnownServerRequest) -> WireModel:
    """The reply that refuses a request: what is sent when nobody approved it."""
    if isinstance(params, CommandApprovalRequest):
        return CommandApprovalReply(decision="decline")
    if isinstance(params, FileChangeApprovalRequest):
        return FileChangeApprovalReply(decision="decline")
    if isinstance(params, UserInputRequest):
        return UserInputReply(answers={})
    if isinstance(params, ElicitationRequest):
        return ElicitationReply(action="decline")
    return PermissionsApprovalReply(permissions={}, scope="turn")
