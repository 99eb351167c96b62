"""Requests about the workspace and the thread's tools, beside turns and threads: compaction,
the user's shell command, files (`@`), a command run where codex runs (/diff), MCP servers,
goals and reviews; their results, and the notifications they bring."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

import msgspec

from engine.protocol.base import ServerNotification, WireModel


class ThreadCompactStartParams(WireModel, kw_only=True):
    """Summarise the thread's history into a shorter one (in a turn of its own)."""

    method: ClassVar[str] = "thread/compact/start"
    schema_name = "ThreadCompactStartParams"
    thread_id: str


class FsGetMetadataParams(WireModel, kw_only=True):
    method: ClassVar[str] = "fs/getMetadata"
    schema_name = "FsGetMetadataParams"
    path: str
    """Absolute, on the machine codex runs on."""


class FsMetadata(WireModel, kw_only=True):
    schema_name = "FsGetMetadataResponse"
    is_directory: bool
    is_file: bool


class FsReadDirectoryParams(WireModel, kw_only=True):
    method: ClassVar[str] = "fs/readDirectory"
    schema_name = "FsReadDirectoryParams"
    path: str


class FsEntry(WireModel, kw_only=True):
    schema_name = "FsReadDirectoryEntry"
    file_name: str
    is_directory: bool
    is_file: bool


class FsDirectory(WireModel, kw_only=True):
    schema_name = "FsReadDirectoryResponse"
    entries: list[FsEntry]


class FsReadFileParams(WireModel, kw_only=True):
    method: ClassVar[str] = "fs/readFile"
    schema_name = "FsReadFileParams"
    path: str
    """Absolute, on the machine codex runs on."""


class FsFile(WireModel, kw_only=True):
    schema_name = "FsReadFileResponse"
    data_base64: str


class FsWriteFileParams(WireModel, kw_only=True):
    """Write (or replace) a whole file where codex runs."""

    method: ClassVar[str] = "fs/writeFile"
    schema_name = "FsWriteFileParams"
    path: str
    data_base64: str


class FsRemoveParams(WireModel, kw_only=True):
    method: ClassVar[str] = "fs/remove"
    schema_name = "FsRemoveParams"
    path: str
    recursive: bool | None = None
    force: bool | None = None


class FileSearchStartParams(WireModel, kw_only=True):
    """Start a search session over `roots` (codex walks them once and keeps what it found)."""

    method: ClassVar[str] = "fuzzyFileSearch/sessionStart"
    schema_name = "FuzzyFileSearchSessionStartParams"
    session_id: str
    roots: list[str]


class FileSearchUpdateParams(WireModel, kw_only=True):
    """Search the session's files for `query` (the files come as notifications)."""

    method: ClassVar[str] = "fuzzyFileSearch/sessionUpdate"
    schema_name = "FuzzyFileSearchSessionUpdateParams"
    session_id: str
    query: str


class FileSearchStopParams(WireModel, kw_only=True):
    method: ClassVar[str] = "fuzzyFileSearch/sessionStop"
    schema_name = "FuzzyFileSearchSessionStopParams"
    session_id: str


class FileMatch(WireModel, kw_only=True):
    schema_name = "FuzzyFileSearchResult"
    root: str
    path: str
    """Relative to `root`."""
    file_name: str = msgspec.field(name="file_name")
    match_type: str = msgspec.field(default="file", name="match_type")
    """`file` or `directory`."""
    score: int = 0
    indices: list[int] | None = None
    """Where in `path` the query's characters matched."""


GoalStatus = Literal["active", "paused", "blocked", "usageLimited", "budgetLimited", "complete"]


class ThreadGoal(WireModel, kw_only=True):
    """What the thread works toward until it is done (codex starts turns for it by itself)."""

    schema_name = "ThreadGoal"
    objective: str
    status: str
    tokens_used: int = 0
    time_used_seconds: int = 0
    token_budget: int | None = None


class ThreadGoalSetParams(WireModel, kw_only=True):
    method: ClassVar[str] = "thread/goal/set"
    schema_name = "ThreadGoalSetParams"
    thread_id: str
    objective: str | None = None
    status: GoalStatus | None = None
    origin: Literal["user"] = "user"
    """Set by the user's own act (a typed /goal)."""


class ThreadGoalClearParams(WireModel, kw_only=True):
    method: ClassVar[str] = "thread/goal/clear"
    schema_name = "ThreadGoalClearParams"
    thread_id: str
    origin: Literal["user"] = "user"


class ThreadGoalResult(WireModel, kw_only=True):
    schema_name = "ThreadGoalSetResponse"
    goal: ThreadGoal


class McpServerStatusListParams(WireModel, kw_only=True):
    method: ClassVar[str] = "mcpServerStatus/list"
    schema_name = "ListMcpServerStatusParams"
    thread_id: str | None = None
    detail: Literal["full", "toolsAndAuthOnly"] = "toolsAndAuthOnly"
    cursor: str | None = None


class McpTool(WireModel, kw_only=True):
    schema_name = "Tool"
    name: str
    description: str | None = None


class McpServerState(WireModel, kw_only=True):
    """An MCP server of codex's config: whether it runs, and its tools."""

    schema_name = "McpServerStatus"
    name: str
    runtime_status: str | None = None
    tools: dict[str, McpTool] = {}
    tools_error: str | None = None


class McpServerStatusList(WireModel, kw_only=True):
    schema_name = "ListMcpServerStatusResponse"
    data: list[McpServerState] = []
    next_cursor: str | None = None


class CommandExecParams(WireModel, kw_only=True):
    """Run a program (argv) where codex runs, in a sandbox, outside any thread."""

    method: ClassVar[str] = "command/exec"
    schema_name = "CommandExecParams"
    command: list[str]
    cwd: str | None = None
    sandbox_policy: dict[str, Any] | None = None
    timeout_ms: int | None = None
    process_id: str | None = None
    """Named by the client, for streamed output and for terminating it."""
    stream_stdout_stderr: bool | None = None
    """Output comes as `command/exec/outputDelta` notifications (not in the result)."""


class CommandExecResult(WireModel, kw_only=True):
    schema_name = "CommandExecResponse"
    exit_code: int
    stdout: str = ""
    stderr: str = ""


class CommandExecTerminateParams(WireModel, kw_only=True):
    """Stop a command started with command/exec (by its `process_id`)."""

    method: ClassVar[str] = "command/exec/terminate"
    schema_name = "CommandExecTerminateParams"
    process_id: str


class ThreadInjectItemsParams(WireModel, kw_only=True):
    """Add Responses API items to what the model sees of the thread's history."""

    method: ClassVar[str] = "thread/inject_items"
    schema_name = "ThreadInjectItemsParams"
    thread_id: str
    items: list[dict[str, Any]]


class ReviewStartParams(WireModel, kw_only=True):
    """Review code in the thread: the uncommitted changes, against a base branch, a commit, or
    as custom instructions say (`target`, as the schema's ReviewTarget)."""

    method: ClassVar[str] = "review/start"
    schema_name = "ReviewStartParams"
    thread_id: str
    target: dict[str, Any]


class ThreadShellCommandParams(WireModel, kw_only=True):
    """Run the user's own shell command in the thread (as a command item of a turn of its
    own, which the model sees); codex runs it with full access, not in the thread's sandbox."""

    method: ClassVar[str] = "thread/shellCommand"
    schema_name = "ThreadShellCommandParams"
    thread_id: str
    command: str


class McpServerStartup(ServerNotification, kw_only=True):
    """An MCP server of codex's config is starting, ready, failed or cancelled."""

    method = "mcpServer/startupStatus/updated"
    schema_name = "McpServerStatusUpdatedNotification"
    name: str
    status: str
    error: str | None = None
    thread_id: str | None = None


class ThreadGoalUpdated(ServerNotification, kw_only=True):
    method = "thread/goal/updated"
    schema_name = "ThreadGoalUpdatedNotification"
    thread_id: str
    goal: ThreadGoal


class ThreadGoalCleared(ServerNotification, kw_only=True):
    method = "thread/goal/cleared"
    schema_name = "ThreadGoalClearedNotification"
    thread_id: str


class FileSearchUpdated(ServerNotification, kw_only=True):
    """Files found so far for a search session's query (again as codex walks on)."""

    method = "fuzzyFileSearch/sessionUpdated"
    schema_name = "FuzzyFileSearchSessionUpdatedNotification"
    session_id: str
    query: str
    files: list[FileMatch] = []


class FileSearchCompleted(ServerNotification, kw_only=True):
    """A search session's query has all its files."""

    method = "fuzzyFileSearch/sessionCompleted"
    schema_name = "FuzzyFileSearchSessionCompletedNotification"
    session_id: str


class CommandExecOutput(ServerNotification, kw_only=True):
    """Output of a command started with command/exec with streamed output, in base64."""

    method = "command/exec/outputDelta"
    schema_name = "CommandExecOutputDeltaNotification"
    process_id: str
    stream: str
    delta_base64: str
    cap_reached: bool = False
