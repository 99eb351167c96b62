"""What a transcript shows, as data: one entry per message, command, change, card or notice.

The transcript keeps every entry but gives widgets only to a window of the latest ones, so a
conversation of thousands of items costs the widgets of a few hundred.
"""

from __future__ import annotations

import msgspec
from textual.widget import Widget

from engine.events import InteractionInfo, NoticeLevel, PlanUpdated, TurnCompleted
from engine.protocol import (
    CollabAgentToolCallItem,
    CommandExecutionItem,
    ContextCompactionItem,
    DynamicToolCallItem,
    FileChangeItem,
    FunctionCallOutputItem,
    HookPromptItem,
    ImageGenerationItem,
    ImageViewItem,
    KnownItem,
    McpToolCallItem,
    PlanItem,
    ReviewModeItem,
    SleepItem,
    SubAgentActivityItem,
    UnknownItem,
    WebSearchItem,
)
from tui.text import duration

KEPT_OUTPUT_CHARS = 256 * 1024
SHOWN_PROMPT_CHARS = 100
"""Command output kept for the screen; past it the oldest output is dropped."""


class Entry(msgspec.Struct, eq=False, kw_only=True):
    key: str
    widget: Widget | None = None
    """The widget showing the entry, while it is in the window."""


class UserEntry(Entry, eq=False, kw_only=True):
    text: str = ""
    steered: bool = False
    images: tuple[str, ...] = ()


class AgentEntry(Entry, eq=False, kw_only=True):
    text: str = ""


class ReasoningEntry(Entry, eq=False, kw_only=True):
    text: str = ""


class CommandEntry(Entry, eq=False, kw_only=True):
    item: CommandExecutionItem
    output: str = ""
    status: str
    trimmed: bool = False
    """The oldest output was dropped to keep the screen's copy bounded."""
    streamed: int = 0
    """How many characters of output came as deltas."""

    def add_output(self, text: str) -> None:
        self.streamed += len(text)
        self.set_output(self.output + text)

    def set_output(self, text: str) -> None:
        if len(text) > KEPT_OUTPUT_CHARS:
            text = text[-KEPT_OUTPUT_CHARS:]
            self.trimmed = True
        self.output = text


class FileChangeEntry(Entry, eq=False, kw_only=True):
    item: FileChangeItem
    status: str


class ToolEntry(Entry, eq=False, kw_only=True):
    item: KnownItem | UnknownItem
    status: str = "completed"


class NoticeEntry(Entry, eq=False, kw_only=True):
    level: NoticeLevel = "info"
    text: str = ""


class TurnEntry(Entry, eq=False, kw_only=True):
    event: TurnCompleted


class PlanEntry(Entry, eq=False, kw_only=True):
    event: PlanUpdated


class ReviewEntry(Entry, eq=False, kw_only=True):
    """A review codex finished: what it says overall, and its findings."""

    item: ReviewModeItem


class ApprovalEntry(Entry, eq=False, kw_only=True):
    info: InteractionInfo
    resolution: str = ""


def describe_item(item: KnownItem | UnknownItem, status: str) -> str:
    """A tool call, search, image or other item the transcript shows as one line."""
    if isinstance(item, McpToolCallItem):
        error = f": {plain_error(item.error.message)}" if item.error else ""
        return f"tool {item.server}.{item.tool} · {status}{error}"
    if isinstance(item, DynamicToolCallItem):
        return f"tool {item.namespace + '.' if item.namespace else ''}{item.tool} · {status}"
    if isinstance(item, WebSearchItem):
        return f"web search: {item.query}"
    if isinstance(item, ImageViewItem):
        return f"looked at image {item.path}"
    if isinstance(item, ImageGenerationItem):
        saved = f"saved to {item.saved_path}" if item.saved_path else "not saved"
        prompt = f"\n  prompt: {item.revised_prompt}" if item.revised_prompt else ""
        return f"generated an image, {saved} · {status}{prompt}"
    if isinstance(item, ContextCompactionItem):
        return "the conversation history was compacted"
    if isinstance(item, ReviewModeItem):
        return (
            "review started: " if item.type == "enteredReviewMode" else "review: "
        ) + item.review
    if isinstance(item, PlanItem):
        return "plan:\n" + item.text
    if isinstance(item, HookPromptItem):
        added = " ".join(fragment.text for fragment in item.fragments)
        return f"a hook added to the prompt: {clipped(added)}"
    if isinstance(item, FunctionCallOutputItem):
        return f"function {item.namespace + '.' if item.namespace else ''}{item.name} returned"
    if isinstance(item, SleepItem):
        return f"waited {duration(item.duration_ms)}"
    if isinstance(item, CollabAgentToolCallItem):
        return agents_line(item, status)
    if isinstance(item, SubAgentActivityItem):
        return f"sub-agent {item.agent_path} {item.kind}"
    if isinstance(item, UnknownItem):
        return f"{item.type} (not shown by codex-deck{': ' + item.problem if item.problem else ''})"
    return f"{item.type} · {status}"


def clipped(text: str, most: int = SHOWN_PROMPT_CHARS) -> str:
    line = " ".join(text.split())
    return line if len(line) <= most else line[: most - 1] + "…"


def agents_line(item: CollabAgentToolCallItem, status: str) -> str:
    """A call of codex's multi-agent tools: which tool, the agents it named and how each is."""
    agents = ", ".join(
        f"{thread[:8]} {state.status}" for thread, state in item.agents_states.items()
    ) or ", ".join(thread[:8] for thread in item.receiver_thread_ids)
    prompt = f": {clipped(item.prompt)}" if item.prompt else ""
    return f"agents · {item.tool} · {status}{' · ' + agents if agents else ''}{prompt}"


def plain_error(message: str) -> str:
    """An error as a line: without the stack backtrace codex may add, its causes joined."""
    kept = message.split("Stack backtrace:", 1)[0]
    joined = " · ".join(line.strip() for line in kept.splitlines() if line.strip())
    return joined.replace("Caused by: · ", "caused by ")
