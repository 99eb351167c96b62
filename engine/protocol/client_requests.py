"""Client→server requests codex-deck sends, and their results.

Each params model names its JSON-RPC `method`.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field

from engine.protocol.base import WireModel
from engine.protocol.thread import Thread, Turn

ApprovalPolicy = Literal["untrusted", "on-request", "never"]
SandboxMode = Literal["read-only", "workspace-write", "danger-full-access"]
ReasoningEffort = Literal["none", "minimal", "low", "medium", "high", "xhigh", "max", "ultra"]


class ClientInfo(WireModel):
    schema_name = "ClientInfo"
    name: str
    version: str
    title: str | None = None


class InitializeCapabilities(WireModel):
    schema_name = "InitializeCapabilities"
    experimental_api: bool = False
    opt_out_notification_methods: list[str] | None = None


class InitializeResult(WireModel):
    schema_name = "InitializeResponse"
    user_agent: str
    codex_home: str | None = None
    platform_family: str | None = None
    platform_os: str | None = None


class InitializeParams(WireModel):
    method: ClassVar[str] = "initialize"
    schema_name = "InitializeParams"
    client_info: ClientInfo
    capabilities: InitializeCapabilities | None = None


TEXT_INPUT_CHARS = 1 << 20
"""The longest text codex takes in a message ("Input exceeds the maximum length of 1048576
characters", as 0.163 answers a longer one)."""


class TextInput(WireModel):
    schema_name = "UserInput#text"
    type: Literal["text"] = "text"
    text: str


class LocalImageInput(WireModel):
    schema_name = "UserInput#localImage"
    type: Literal["localImage"] = "localImage"
    path: str


UserInput = TextInput | LocalImageInput


class ThreadSettings(WireModel):
    """Overrides that thread/start, thread/resume and thread/fork all take."""

    cwd: str | None = None
    model: str | None = None
    model_provider: str | None = None
    approval_policy: ApprovalPolicy | None = None
    sandbox: SandboxMode | None = None
    config: dict[str, Any] | None = None
    base_instructions: str | None = None
    developer_instructions: str | None = None


class ThreadOpened(WireModel):
    """The result of thread/start, thread/resume and thread/fork."""

    schema_name = "ThreadStartResponse"
    thread: Thread
    model: str
    model_provider: str
    cwd: str
    approval_policy: Any = None
    sandbox: dict[str, Any] | None = None
    reasoning_effort: str | None = None


class ThreadStartParams(ThreadSettings):
    method: ClassVar[str] = "thread/start"
    schema_name = "ThreadStartParams"
    ephemeral: bool | None = None


class ThreadResumeParams(ThreadSettings):
    method: ClassVar[str] = "thread/resume"
    schema_name = "ThreadResumeParams"
    thread_id: str
    exclude_turns: bool | None = None


class ThreadForkParams(ThreadSettings):
    method: ClassVar[str] = "thread/fork"
    schema_name = "ThreadForkParams"
    thread_id: str
    ephemeral: bool
    exclude_turns: bool | None = None
    before_turn_id: str | None = None
    """Fork the history before this turn (it and every later turn left out)."""


class ThreadReadResult(WireModel):
    schema_name = "ThreadReadResponse"
    thread: Thread


class ThreadReadParams(WireModel):
    method: ClassVar[str] = "thread/read"
    schema_name = "ThreadReadParams"
    thread_id: str
    include_turns: bool = False


class ThreadTurnsListParams(WireModel):
    method: ClassVar[str] = "thread/turns/list"
    schema_name = "ThreadTurnsListParams"
    thread_id: str
    limit: int | None = None
    cursor: str | None = None
    sort_direction: Literal["asc", "desc"] | None = None
    items_view: Literal["notLoaded", "summary", "full"] | None = None


class ThreadTurnsListResult(WireModel):
    schema_name = "ThreadTurnsListResponse"
    data: list[Turn] = []
    next_cursor: str | None = None


class ThreadListParams(WireModel):
    method: ClassVar[str] = "thread/list"
    schema_name = "ThreadListParams"
    limit: int | None = None
    cursor: str | None = None
    sort_key: Literal["created_at", "updated_at"] | None = None
    archived: bool | None = None


class ThreadListResult(WireModel):
    schema_name = "ThreadListResponse"
    data: list[Thread] = []
    next_cursor: str | None = None


class ModelListParams(WireModel):
    method: ClassVar[str] = "model/list"
    schema_name = "ModelListParams"
    include_hidden: bool | None = None
    cursor: str | None = None


class ReasoningEffortOption(WireModel):
    schema_name = "ReasoningEffortOption"
    reasoning_effort: str
    description: str = ""


class ModelInfo(WireModel):
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


class ModelListResult(WireModel):
    schema_name = "ModelListResponse"
    data: list[ModelInfo] = []
    next_cursor: str | None = None


class ThreadArchiveParams(WireModel):
    method: ClassVar[str] = "thread/archive"
    schema_name = "ThreadArchiveParams"
    thread_id: str


class ThreadUnarchiveParams(WireModel):
    method: ClassVar[str] = "thread/unarchive"
    schema_name = "ThreadUnarchiveParams"
    thread_id: str


class ThreadCompactStartParams(WireModel):
    """Summarise the thread's history into a shorter one (in a turn of its own)."""

    method: ClassVar[str] = "thread/compact/start"
    schema_name = "ThreadCompactStartParams"
    thread_id: str


class FsGetMetadataParams(WireModel):
    method: ClassVar[str] = "fs/getMetadata"
    schema_name = "FsGetMetadataParams"
    path: str
    """Absolute, on the machine codex runs on."""


class FsMetadata(WireModel):
    schema_name = "FsGetMetadataResponse"
    is_directory: bool
    is_file: bool


class FileSearchStartParams(WireModel):
    """Start a search session over `roots` (codex walks them once and keeps what it found)."""

    method: ClassVar[str] = "fuzzyFileSearch/sessionStart"
    schema_name = "FuzzyFileSearchSessionStartParams"
    session_id: str
    roots: list[str]


class FileSearchUpdateParams(WireModel):
    """Search the session's files for `query` (the files come as notifications)."""

    method: ClassVar[str] = "fuzzyFileSearch/sessionUpdate"
    schema_name = "FuzzyFileSearchSessionUpdateParams"
    session_id: str
    query: str


class FileSearchStopParams(WireModel):
    method: ClassVar[str] = "fuzzyFileSearch/sessionStop"
    schema_name = "FuzzyFileSearchSessionStopParams"
    session_id: str


class FileMatch(WireModel):
    schema_name = "FuzzyFileSearchResult"
    root: str
    path: str
    """Relative to `root`."""
    file_name: str = Field(alias="file_name")
    match_type: str = Field(default="file", alias="match_type")
    """`file` or `directory`."""
    score: int = 0
    indices: list[int] | None = None
    """Where in `path` the query's characters matched."""


GoalStatus = Literal["active", "paused", "blocked", "usageLimited", "budgetLimited", "complete"]


class ThreadGoal(WireModel):
    """What the thread works toward until it is done (codex starts turns for it by itself)."""

    schema_name = "ThreadGoal"
    objective: str
    status: str
    tokens_used: int = 0
    time_used_seconds: int = 0
    token_budget: int | None = None


class ThreadGoalSetParams(WireModel):
    method: ClassVar[str] = "thread/goal/set"
    schema_name = "ThreadGoalSetParams"
    thread_id: str
    objective: str | None = None
    status: GoalStatus | None = None
    origin: Literal["user"] = "user"
    """Set by the user's own act (a typed /goal)."""


class ThreadGoalClearParams(WireModel):
    method: ClassVar[str] = "thread/goal/clear"
    schema_name = "ThreadGoalClearParams"
    thread_id: str
    origin: Literal["user"] = "user"


class ThreadGoalResult(WireModel):
    schema_name = "ThreadGoalSetResponse"
    goal: ThreadGoal


class McpServerStatusListParams(WireModel):
    method: ClassVar[str] = "mcpServerStatus/list"
    schema_name = "ListMcpServerStatusParams"
    thread_id: str | None = None
    detail: Literal["full", "toolsAndAuthOnly"] = "toolsAndAuthOnly"
    cursor: str | None = None


class McpTool(WireModel):
    schema_name = "Tool"
    name: str
    description: str | None = None


class McpServerState(WireModel):
    """An MCP server of codex's config: whether it runs, and its tools."""

    schema_name = "McpServerStatus"
    name: str
    runtime_status: str | None = None
    tools: dict[str, McpTool] = {}
    tools_error: str | None = None


class McpServerStatusList(WireModel):
    schema_name = "ListMcpServerStatusResponse"
    data: list[McpServerState] = []
    next_cursor: str | None = None


class CommandExecParams(WireModel):
    """Run a program (argv) where codex runs, in a sandbox, outside any thread."""

    method: ClassVar[str] = "command/exec"
    schema_name = "CommandExecParams"
    command: list[str]
    cwd: str | None = None
    sandbox_policy: dict[str, Any] | None = None
    timeout_ms: int | None = None


class CommandExecResult(WireModel):
    schema_name = "CommandExecResponse"
    exit_code: int
    stdout: str = ""
    stderr: str = ""


class ReviewStartParams(WireModel):
    """Review code in the thread: the uncommitted changes, against a base branch, a commit, or
    as custom instructions say (`target`, as the schema's ReviewTarget)."""

    method: ClassVar[str] = "review/start"
    schema_name = "ReviewStartParams"
    thread_id: str
    target: dict[str, Any]


class ThreadShellCommandParams(WireModel):
    """Run the user's own shell command in the thread (as a command item of a turn of its
    own, which the model sees); codex runs it with full access, not in the thread's sandbox."""

    method: ClassVar[str] = "thread/shellCommand"
    schema_name = "ThreadShellCommandParams"
    thread_id: str
    command: str


class TurnStartResult(WireModel):
    schema_name = "TurnStartResponse"
    turn: Turn


class TurnStartParams(WireModel):
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


class TurnSteerResult(WireModel):
    schema_name = "TurnSteerResponse"
    turn_id: str


class TurnSteerParams(WireModel):
    method: ClassVar[str] = "turn/steer"
    schema_name = "TurnSteerParams"
    thread_id: str
    expected_turn_id: str
    input: list[UserInput]
    client_user_message_id: str | None = None


class EmptyResult(WireModel):
    """A result with nothing in it that codex-deck reads."""


class TurnInterruptParams(WireModel):
    method: ClassVar[str] = "turn/interrupt"
    schema_name = "TurnInterruptParams"
    thread_id: str
    turn_id: str


class Account(WireModel):
    schema_name = "Account#chatgpt"
    type: str
    email: str | None = None
    plan_type: str | None = None


class AccountReadResult(WireModel):
    schema_name = "GetAccountResponse"
    account: Account | None = None
    requires_openai_auth: bool


class AccountReadParams(WireModel):
    method: ClassVar[str] = "account/read"
    schema_name = "GetAccountParams"
    refresh_token: bool = False


class ApiKeyLoginParams(WireModel):
    method: ClassVar[str] = "account/login/start"
    schema_name = "LoginAccountParams#apiKey"
    type: Literal["apiKey"] = "apiKey"
    api_key: str


class DeviceCodeLoginParams(WireModel):
    method: ClassVar[str] = "account/login/start"
    schema_name = "LoginAccountParams#chatgptDeviceCode"
    type: Literal["chatgptDeviceCode"] = "chatgptDeviceCode"


class LoginStarted(WireModel):
    """What codex answered to a sign-in: for a device code, where to go and what to type."""

    schema_name = "LoginAccountResponse#chatgptDeviceCode"
    type: str
    login_id: str | None = None
    user_code: str | None = None
    verification_url: str | None = None


class CancelLoginParams(WireModel):
    method: ClassVar[str] = "account/login/cancel"
    schema_name = "CancelLoginAccountParams"
    login_id: str


class LogoutParams(WireModel):
    method: ClassVar[str] = "account/logout"
    schema_name = "LogoutAccountResponse"


class ConfigReadParams(WireModel):
    method: ClassVar[str] = "config/read"
    schema_name = "ConfigReadParams"
    cwd: str | None = None


class ConfigReadResult(WireModel):
    """The effective config (codex's own keys, snake_case as in config.toml)."""

    schema_name = "ConfigReadResponse"
    config: dict[str, Any]
