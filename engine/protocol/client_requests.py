"""Client→server requests codex-deck sends, and their results.

Each params model names its JSON-RPC `method`.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from engine.protocol.base import WireModel
from engine.protocol.items import ThreadItem
from engine.protocol.thread import Thread, Turn

ApprovalPolicy = Literal["untrusted", "on-request", "never"]
SandboxMode = Literal["read-only", "workspace-write", "danger-full-access"]
ReasoningEffort = Literal["none", "minimal", "low", "medium", "high", "xhigh", "max", "ultra"]


class ClientInfo(WireModel, kw_only=True):
    schema_name = "ClientInfo"
    name: str
    version: str
    title: str | None = None


class InitializeCapabilities(WireModel, kw_only=True):
    schema_name = "InitializeCapabilities"
    experimental_api: bool = False
    opt_out_notification_methods: list[str] | None = None


class InitializeResult(WireModel, kw_only=True):
    schema_name = "InitializeResponse"
    user_agent: str
    codex_home: str | None = None
    platform_family: str | None = None
    platform_os: str | None = None


class InitializeParams(WireModel, kw_only=True):
    method: ClassVar[str] = "initialize"
    schema_name = "InitializeParams"
    client_info: ClientInfo
    capabilities: InitializeCapabilities | None = None


TEXT_INPUT_CHARS = 1 << 20
"""The longest text codex takes in a message ("Input exceeds the maximum length of 1048576
characters", as 0.163 answers a longer one)."""


class TextInput(WireModel, kw_only=True):
    schema_name = "UserInput#text"
    type: Literal["text"] = "text"
    text: str


class LocalImageInput(WireModel, kw_only=True):
    schema_name = "UserInput#localImage"
    type: Literal["localImage"] = "localImage"
    path: str


UserInput = TextInput | LocalImageInput


class ThreadSettings(WireModel, kw_only=True):
    """Overrides that thread/start, thread/resume and thread/fork all take."""

    cwd: str | None = None
    model: str | None = None
    model_provider: str | None = None
    approval_policy: ApprovalPolicy | None = None
    sandbox: SandboxMode | None = None
    config: dict[str, Any] | None = None
    base_instructions: str | None = None
    developer_instructions: str | None = None


class ThreadOpened(WireModel, kw_only=True):
    """The result of thread/start, thread/resume and thread/fork."""

    schema_name = "ThreadStartResponse"
    thread: Thread
    model: str
    model_provider: str
    cwd: str
    approval_policy: Any = None
    sandbox: dict[str, Any] | None = None
    reasoning_effort: str | None = None


class ThreadStartParams(ThreadSettings, kw_only=True):
    method: ClassVar[str] = "thread/start"
    schema_name = "ThreadStartParams"
    ephemeral: bool | None = None


class ThreadResumeParams(ThreadSettings, kw_only=True):
    method: ClassVar[str] = "thread/resume"
    schema_name = "ThreadResumeParams"
    thread_id: str
    exclude_turns: bool | None = None


class ThreadForkParams(ThreadSettings, kw_only=True):
    method: ClassVar[str] = "thread/fork"
    schema_name = "ThreadForkParams"
    thread_id: str
    ephemeral: bool
    exclude_turns: bool | None = None
    before_turn_id: str | None = None
    """Fork the history before this turn (it and every later turn left out)."""


class ThreadReadResult(WireModel, kw_only=True):
    schema_name = "ThreadReadResponse"
    thread: Thread


class ThreadReadParams(WireModel, kw_only=True):
    method: ClassVar[str] = "thread/read"
    schema_name = "ThreadReadParams"
    thread_id: str
    include_turns: bool = False


class ThreadTurnsListParams(WireModel, kw_only=True):
    method: ClassVar[str] = "thread/turns/list"
    schema_name = "ThreadTurnsListParams"
    thread_id: str
    limit: int | None = None
    cursor: str | None = None
    sort_direction: Literal["asc", "desc"] | None = None
    items_view: Literal["notLoaded", "summary", "full"] | None = None


class ThreadTurnsListResult(WireModel, kw_only=True):
    schema_name = "ThreadTurnsListResponse"
    data: list[Turn] = []
    next_cursor: str | None = None


class ThreadItemsListParams(WireModel, kw_only=True):
    """A page of a thread's items (across its turns unless `turn_id`): codex gives at most
    100 a page."""

    method: ClassVar[str] = "thread/items/list"
    schema_name = "ThreadItemsListParams"
    thread_id: str
    limit: int | None = None
    cursor: str | None = None
    sort_direction: Literal["asc", "desc"] | None = None
    turn_id: str | None = None


class ThreadItemEntry(WireModel, kw_only=True):
    """An item of a thread and the turn it belongs to."""

    schema_name = "ThreadItemEntry"
    turn_id: str
    item: ThreadItem


class ThreadItemsListResult(WireModel, kw_only=True):
    schema_name = "ThreadItemsListResponse"
    data: list[ThreadItemEntry] = []
    next_cursor: str | None = None


ThreadSourceKind = Literal[
    "cli",
    "vscode",
    "exec",
    "appServer",
    "subAgent",
    "subAgentReview",
    "subAgentCompact",
    "subAgentThreadSpawn",
    "subAgentOther",
    "unknown",
]
TOP_LEVEL_SOURCES: list[ThreadSourceKind] = ["cli", "vscode", "exec", "appServer", "unknown"]
"""Where a thread a person started comes from (not a sub-agent's)."""


class ThreadListParams(WireModel, kw_only=True):
    method: ClassVar[str] = "thread/list"
    schema_name = "ThreadListParams"
    limit: int | None = None
    cursor: str | None = None
    sort_key: Literal["created_at", "updated_at"] | None = None
    archived: bool | None = None
    source_kinds: list[ThreadSourceKind] | None = None
    """Left out, codex lists only threads of interactive sources (not `codex exec`'s)."""
    use_state_db_only: bool | None = None
    """True: from codex's index of its threads (its state database) alone, without reading
    the rollout files to repair it, which costs milliseconds for each thread listed."""


class ThreadListResult(WireModel, kw_only=True):
    schema_name = "ThreadListResponse"
    data: list[Thread] = []
    next_cursor: str | None = None


class ModelListParams(WireModel, kw_only=True):
    method: ClassVar[str] = "model/list"
    schema_name = "ModelListParams"
    include_hidden: bool | None = None
    cursor: str | None = None


class ReasoningEffortOption(WireModel, kw_only=True):
    schema_name = "ReasoningEffortOption"
    reasoning_effort: str
    description: str = ""


class ModelInfo(WireModel, kw_only=True):
    """A model codex offers, with the reasoning efforts it takes."""

    schema_name = "Model"
    id: str
    model: str
    display_name: str = ""
    description: str = ""
    hidden: bool = False
    is_default: bool = False
    default_reasoning_effort: str | None = None
    supported_reasoning_efforts: list[ReasoningEffortOption] = []


class ModelListResult(WireModel, kw_only=True):
    schema_name = "ModelListResponse"
    data: list[ModelInfo] = []
    next_cursor: str | None = None


class ThreadArchiveParams(WireModel, kw_only=True):
    method: ClassVar[str] = "thread/archive"
    schema_name = "ThreadArchiveParams"
    thread_id: str


class ThreadUnarchiveParams(WireModel, kw_only=True):
    method: ClassVar[str] = "thread/unarchive"
    schema_name = "ThreadUnarchiveParams"
    thread_id: str


class TurnStartResult(WireModel, kw_only=True):
    schema_name = "TurnStartResponse"
    turn: Turn


class TurnStartParams(WireModel, kw_only=True):
    method: ClassVar[str] = "turn/start"
    schema_name = "TurnStartParams"
    thread_id: str
    input: list[UserInput]
    client_user_message_id: str | None = None
    cwd: str | None = None
    model: str | None = None
    effort: ReasoningEffort | None = None
    approval_policy: ApprovalPolicy | None = None
    sandbox_policy: dict[str, Any] | None = None
    collaboration_mode: dict[str, Any] | None = None
    """Experimental: `{"mode": "plan", "settings": {...}}` runs the turn in plan mode."""


SANDBOX_POLICIES: dict[str, dict[str, Any]] = {
    "read-only": {"type": "readOnly"},
    "workspace-write": {"type": "workspaceWrite"},
    "danger-full-access": {"type": "dangerFullAccess"},
}
"""The turn/start `sandboxPolicy` for each sandbox mode."""


def plan_mode(model: str) -> dict[str, Any]:
    """The collaboration mode that runs a turn as codex's plan mode (its own instructions)."""
    return {"mode": "plan", "settings": {"model": model, "developer_instructions": None}}


class TurnSteerResult(WireModel, kw_only=True):
    schema_name = "TurnSteerResponse"
    turn_id: str


class TurnSteerParams(WireModel, kw_only=True):
    method: ClassVar[str] = "turn/steer"
    schema_name = "TurnSteerParams"
    thread_id: str
    expected_turn_id: str
    input: list[UserInput]
    client_user_message_id: str | None = None


class EmptyResult(WireModel, kw_only=True):
    """A result with nothing in it that codex-deck reads."""


class TurnInterruptParams(WireModel, kw_only=True):
    method: ClassVar[str] = "turn/interrupt"
    schema_name = "TurnInterruptParams"
    thread_id: str
    turn_id: str


class Account(WireModel, kw_only=True):
    schema_name = "Account#chatgpt"
    type: str
    email: str | None = None
    plan_type: str | None = None


class AccountReadResult(WireModel, kw_only=True):
    schema_name = "GetAccountResponse"
    account: Account | None = None
    requires_openai_auth: bool


class AccountReadParams(WireModel, kw_only=True):
    method: ClassVar[str] = "account/read"
    schema_name = "GetAccountParams"
    refresh_token: bool = False


class ApiKeyLoginParams(WireModel, kw_only=True):
    method: ClassVar[str] = "account/login/start"
    schema_name = "LoginAccountParams#apiKey"
    type: Literal["apiKey"] = "apiKey"
    api_key: str


class DeviceCodeLoginParams(WireModel, kw_only=True):
    method: ClassVar[str] = "account/login/start"
    schema_name = "LoginAccountParams#chatgptDeviceCode"
    type: Literal["chatgptDeviceCode"] = "chatgptDeviceCode"


class LoginStarted(WireModel, kw_only=True):
    """What codex answered to a sign-in: for a device code, where to go and what to type."""

    schema_name = "LoginAccountResponse#chatgptDeviceCode"
    type: str
    login_id: str | None = None
    user_code: str | None = None
    verification_url: str | None = None


class CancelLoginParams(WireModel, kw_only=True):
    method: ClassVar[str] = "account/login/cancel"
    schema_name = "CancelLoginAccountParams"
    login_id: str


class LogoutParams(WireModel, kw_only=True):
    method: ClassVar[str] = "account/logout"
    schema_name = "LogoutAccountResponse"


class ConfigReadParams(WireModel, kw_only=True):
    method: ClassVar[str] = "config/read"
    schema_name = "ConfigReadParams"
    cwd: str | None = None
    include_layers: bool | None = None


class ConfigLayerSource(WireModel, kw_only=True):
    """Where a layer of codex's config comes from: a file (`user`, `system`, …), a project's
    `.codex` folder, the flags codex was started with, …"""

    schema_name = "ConfigLayerSource"
    type: str
    file: str | None = None
    dot_codex_folder: str | None = None


class ConfigLayer(WireModel, kw_only=True):
    schema_name = "ConfigLayer"
    name: ConfigLayerSource


class ConfigReadResult(WireModel, kw_only=True):
    """The effective config (codex's own keys, snake_case as in config.toml), and its layers
    when asked for them."""

    schema_name = "ConfigReadResponse"
    config: dict[str, Any]
    layers: list[ConfigLayer] | None = None
