"""Thread items: what a turn is made of (messages, reasoning, commands, file changes, tools …).

`parse_item` never raises: an item of a type codex-deck does not know, or one whose known
fields have unexpected types, becomes an `UnknownItem` carrying the raw payload.
"""

from __future__ import annotations

from abc import ABC
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

import msgspec

from engine.protocol.base import ValidationError, WireModel, describe_invalid, reads_as


class UserMessageItem(WireModel, kw_only=True):
    """What the user sent (text, images, mentions)."""

    schema_name = "ThreadItem#userMessage"
    type: Literal["userMessage"] = "userMessage"
    id: str
    content: list[dict[str, Any]] = []
    client_id: str | None = None

    @property
    def text(self) -> str:
        """The text parts of the message, joined."""
        return "\n".join(
            part["text"]
            for part in self.content
            if part.get("type") == "text" and isinstance(part.get("text"), str)
        )

    @property
    def images(self) -> tuple[str, ...]:
        """The images sent with it: local paths, or URLs."""
        found = []
        for part in self.content:
            value = part.get("path") if part.get("type") == "localImage" else part.get("url")
            if part.get("type") in ("localImage", "image") and isinstance(value, str):
                found.append(value)
        return tuple(found)


class AgentMessageItem(WireModel, kw_only=True):
    """A message from the agent; streamed as `item/agentMessage/delta`."""

    schema_name = "ThreadItem#agentMessage"
    type: Literal["agentMessage"] = "agentMessage"
    id: str
    text: str = ""
    phase: str | None = None


class ReasoningItem(WireModel, kw_only=True):
    """The model's reasoning: summaries, and raw content for models that expose it."""

    schema_name = "ThreadItem#reasoning"
    type: Literal["reasoning"] = "reasoning"
    id: str
    summary: list[str] = []
    content: list[str] = []


class PlanItem(WireModel, kw_only=True):
    """A proposed plan (plan collaboration mode)."""

    schema_name = "ThreadItem#plan"
    type: Literal["plan"] = "plan"
    id: str
    text: str = ""


class CommandAction(WireModel, kw_only=True):
    """What codex's parser says one part of a command does (read, list files, search …)."""

    schema_name = "CommandAction"
    type: str
    command: str = ""
    name: str | None = None
    path: str | None = None
    query: str | None = None


USER_SHELL = "userShell"
"""The source of a command the user ran (`thread/shellCommand`: with full access)."""
USER_SHELL_SANDBOXED = "userShellSandboxed"
"""codex-deck's own source (codex never sends it) for a command the user ran under the
conversation's sandbox (command/exec)."""


class CommandExecutionItem(WireModel, kw_only=True):
    """A shell command the agent ran (or asked to run)."""

    schema_name = "ThreadItem#commandExecution"
    type: Literal["commandExecution"] = "commandExecution"
    id: str
    command: str
    cwd: str
    status: str
    command_actions: list[CommandAction] = []
    aggregated_output: str | None = None
    exit_code: int | None = None
    duration_ms: int | None = None
    process_id: str | None = None
    source: str | None = None


class ChangeKind(WireModel, kw_only=True):
    """Whether a file is added, deleted or updated (and maybe moved)."""

    schema_name = "PatchChangeKind"
    type: str
    move_path: str | None = msgspec.field(default=None, name="move_path")


class FileChange(WireModel, kw_only=True):
    """One file of a patch, with its unified diff (the whole content for an added file)."""

    schema_name = "FileUpdateChange"
    path: str
    kind: ChangeKind
    diff: str

    def unified(self) -> str:
        """The change as a unified diff body (an added file's content becomes `+` lines, a
        deleted one's `-` lines)."""
        kind = self.kind.type
        if kind == "add":
            return "".join(f"+{line}\n" for line in self.diff.splitlines())
        if kind == "delete" and not self.diff.startswith(("-", "@@")):
            return "".join(f"-{line}\n" for line in self.diff.splitlines())
        return self.diff


class FileChangeItem(WireModel, kw_only=True):
    """A patch the agent applied (or asked to apply)."""

    schema_name = "ThreadItem#fileChange"
    type: Literal["fileChange"] = "fileChange"
    id: str
    changes: list[FileChange]
    status: str


class McpToolCallResult(WireModel, kw_only=True):
    """What an MCP tool returned."""

    schema_name = "McpToolCallResult"
    content: list[Any] = []
    structured_content: Any = None


class McpToolCallError(WireModel, kw_only=True):
    """Why an MCP tool call failed."""

    schema_name = "McpToolCallError"
    message: str


class McpToolCallItem(WireModel, kw_only=True):
    """A call to a tool of an MCP server."""

    schema_name = "ThreadItem#mcpToolCall"
    type: Literal["mcpToolCall"] = "mcpToolCall"
    id: str
    server: str
    tool: str
    status: str
    arguments: Any = None
    result: McpToolCallResult | None = None
    error: McpToolCallError | None = None
    duration_ms: int | None = None


class DynamicToolCallItem(WireModel, kw_only=True):
    """A call to a tool the client provided."""

    schema_name = "ThreadItem#dynamicToolCall"
    type: Literal["dynamicToolCall"] = "dynamicToolCall"
    id: str
    tool: str
    status: str
    namespace: str | None = None
    arguments: Any = None
    content_items: list[dict[str, Any]] | None = None
    success: bool | None = None
    duration_ms: int | None = None


class WebSearchItem(WireModel, kw_only=True):
    """A web search, or a page opened or searched."""

    schema_name = "ThreadItem#webSearch"
    type: Literal["webSearch"] = "webSearch"
    id: str
    query: str = ""
    action: dict[str, Any] | None = None


class ImageViewItem(WireModel, kw_only=True):
    """An image the agent looked at."""

    schema_name = "ThreadItem#imageView"
    type: Literal["imageView"] = "imageView"
    id: str
    path: str


class ImageGenerationItem(WireModel, kw_only=True):
    """An image the agent generated."""

    schema_name = "ThreadItem#imageGeneration"
    type: Literal["imageGeneration"] = "imageGeneration"
    id: str
    status: str
    saved_path: str | None = None
    revised_prompt: str | None = None


class ReviewModeItem(WireModel, kw_only=True):
    """Entering or leaving review mode, with the review text."""

    schema_name = "ThreadItem#enteredReviewMode"
    type: Literal["enteredReviewMode", "exitedReviewMode"]
    id: str
    review: str = ""


class ContextCompactionItem(WireModel, kw_only=True):
    """The conversation history was compacted."""

    schema_name = "ThreadItem#contextCompaction"
    type: Literal["contextCompaction"] = "contextCompaction"
    id: str


class HookPromptFragment(WireModel, kw_only=True):
    schema_name = "HookPromptFragment"
    hook_run_id: str
    text: str


class HookPromptItem(WireModel, kw_only=True):
    """Text a hook added to what the model is sent."""

    schema_name = "ThreadItem#hookPrompt"
    type: Literal["hookPrompt"] = "hookPrompt"
    id: str
    fragments: list[HookPromptFragment] = []


class FunctionCallOutputItem(WireModel, kw_only=True):
    """What a function the model called returned (a tool without an item of its own)."""

    schema_name = "ThreadItem#functionCallOutput"
    type: Literal["functionCallOutput"] = "functionCallOutput"
    id: str
    name: str
    namespace: str | None = None
    output: Any = None


class SleepItem(WireModel, kw_only=True):
    """The agent waited."""

    schema_name = "ThreadItem#sleep"
    type: Literal["sleep"] = "sleep"
    id: str
    duration_ms: int


class CollabAgentState(WireModel, kw_only=True):
    schema_name = "CollabAgentState"
    status: str
    message: str | None = None


class CollabAgentToolCallItem(WireModel, kw_only=True):
    """A call of codex's multi-agent tools: spawning a sub-agent, writing to one, waiting."""

    schema_name = "ThreadItem#collabAgentToolCall"
    type: Literal["collabAgentToolCall"] = "collabAgentToolCall"
    id: str
    tool: str
    status: str
    sender_thread_id: str
    receiver_thread_ids: list[str] = []
    agents_states: dict[str, CollabAgentState] = {}
    prompt: str | None = None
    model: str | None = None


class SubAgentActivityItem(WireModel, kw_only=True):
    """A sub-agent started, was written to, was interrupted or completed."""

    schema_name = "ThreadItem#subAgentActivity"
    type: Literal["subAgentActivity"] = "subAgentActivity"
    id: str
    agent_path: str
    agent_thread_id: str
    kind: str
    model: str | None = None


class UnknownItem(WireModel, kw_only=True):
    """An item codex-deck does not model (or could not read); shown raw."""

    type: str
    id: str = ""
    raw: Any = None
    problem: str | None = None


KnownItem = (
    UserMessageItem
    | AgentMessageItem
    | ReasoningItem
    | PlanItem
    | CommandExecutionItem
    | FileChangeItem
    | McpToolCallItem
    | DynamicToolCallItem
    | WebSearchItem
    | ImageViewItem
    | ImageGenerationItem
    | ReviewModeItem
    | ContextCompactionItem
    | HookPromptItem
    | FunctionCallOutputItem
    | SleepItem
    | CollabAgentToolCallItem
    | SubAgentActivityItem
)

ITEM_TYPES: dict[str, type[KnownItem]] = {
    "userMessage": UserMessageItem,
    "agentMessage": AgentMessageItem,
    "reasoning": ReasoningItem,
    "plan": PlanItem,
    "commandExecution": CommandExecutionItem,
    "fileChange": FileChangeItem,
    "mcpToolCall": McpToolCallItem,
    "dynamicToolCall": DynamicToolCallItem,
    "webSearch": WebSearchItem,
    "imageView": ImageViewItem,
    "imageGeneration": ImageGenerationItem,
    "enteredReviewMode": ReviewModeItem,
    "exitedReviewMode": ReviewModeItem,
    "contextCompaction": ContextCompactionItem,
    "hookPrompt": HookPromptItem,
    "functionCallOutput": FunctionCallOutputItem,
    "sleep": SleepItem,
    "collabAgentToolCall": CollabAgentToolCallItem,
    "subAgentActivity": SubAgentActivityItem,
}


def parse_item(raw: Any) -> KnownItem | UnknownItem:
    """Read one thread item; never raises."""
    if not isinstance(raw, dict):
        return UnknownItem(type="(not an object)", raw=raw, problem="item is not an object")
    kind = raw.get("type")
    kind_name = kind if isinstance(kind, str) else "(no type)"
    item_id = raw.get("id")
    item_id = item_id if isinstance(item_id, str) else ""
    model = ITEM_TYPES.get(kind_name)
    if model is None:
        return UnknownItem(type=kind_name, id=item_id, raw=raw)
    try:
        return model.read(raw)
    except ValidationError as error:
        return UnknownItem(type=kind_name, id=item_id, raw=raw, problem=describe_invalid(error))


if TYPE_CHECKING:
    ThreadItem: TypeAlias = KnownItem | UnknownItem
else:

    class ThreadItem(ABC):  # noqa: B024 (no methods: a type every item is an instance of)
        """A field type that reads any thread item through `parse_item` (the checker sees
        the union it reads as)."""

    for _item in (*ITEM_TYPES.values(), UnknownItem):
        ThreadItem.register(_item)
    reads_as(ThreadItem, parse_item)
