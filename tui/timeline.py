"""Where a turn spent its time: each item (the model writing, commands, file changes, tool
calls) and each wait on the user as a bar on the turn's time axis, drawn with block
characters to an eighth of a cell."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import PurePath
from typing import Literal

import msgspec
from rich.text import Text

from engine.events import (
    EngineEvent,
    InteractionRequested,
    InteractionResolved,
    ItemCompleted,
    ItemStarted,
    TurnCompleted,
    TurnStarted,
)
from engine.protocol import (
    AgentMessageItem,
    CommandExecutionItem,
    FileChangeItem,
    KnownItem,
    ReasoningItem,
    UnknownItem,
    UserMessageItem,
)
from tui.text import duration, inert, shown_command

SpanKind = Literal["model", "command", "change", "tool", "wait"]
STYLES: dict[SpanKind, str] = {
    "model": "bold blue",
    "command": "bold green",
    "change": "bold magenta",
    "tool": "bold cyan",
    "wait": "bold yellow",
}
EIGHTHS = " ▏▎▍▌▋▊▉█"
LABEL_WIDTH = 18
TOOK_WIDTH = 8


class Span(msgspec.Struct, eq=False):
    kind: SpanKind
    label: str
    start: float
    end: float | None = None
    """None while it is still going."""


class Timeline(msgspec.Struct):
    turn_id: str
    start: float
    end: float | None
    """None while the turn runs."""
    status: str
    spans: list[Span]

    def length(self, now: float) -> float:
        return max((self.end if self.end is not None else now) - self.start, 0.0)


def turn_timelines(events: Iterable[EngineEvent]) -> list[Timeline]:
    """The timelines of the turns in `events` (one conversation's, in order)."""
    timelines: dict[str, Timeline] = {}
    items: dict[str, Span] = {}
    waits: dict[str, Span] = {}
    for event in events:
        if isinstance(event, TurnStarted):
            timelines[event.turn_id] = Timeline(event.turn_id, event.at, None, "running", [])
            continue
        turn_id = getattr(event, "turn_id", None)
        if isinstance(event, InteractionRequested):
            turn_id = event.interaction.turn_id
        timeline = timelines.get(turn_id) if isinstance(turn_id, str) else None
        if isinstance(event, InteractionResolved):
            wait = waits.pop(event.interaction_id, None)
            if wait is not None:
                wait.end = event.at
                if event.by != "user":
                    wait.label += f" ({event.outcome})"
            continue
        if timeline is None:
            continue
        if isinstance(event, TurnCompleted):
            timeline.end, timeline.status = event.at, event.status
            for span in timeline.spans:
                if span.end is None:
                    span.end = event.at
        elif isinstance(event, ItemStarted):
            begun = _span(event.item, event.at)
            if begun is not None:
                items[event.item.id] = begun
                timeline.spans.append(begun)
        elif isinstance(event, ItemCompleted):
            ended = items.pop(event.item.id, None) or _span(event.item, _started(event))
            if ended is None:
                continue
            if ended not in timeline.spans:
                timeline.spans.append(ended)
            ended.end = event.at
        elif isinstance(event, InteractionRequested):
            info = event.interaction
            wait = Span("wait", f"you: {info.kind.replace('_', ' ')}", event.at)
            waits[info.id] = wait
            timeline.spans.append(wait)
    return list(timelines.values())


def _started(event: ItemCompleted) -> float:
    """When an item seen only at its end began (a command says how long it took)."""
    took = getattr(event.item, "duration_ms", None)
    return event.at - took / 1000 if isinstance(took, int) else event.at


def _span(item: KnownItem | UnknownItem, at: float) -> Span | None:
    if isinstance(item, UserMessageItem):
        return None
    if isinstance(item, AgentMessageItem):
        return Span("model", "model: answer", at)
    if isinstance(item, ReasoningItem):
        return Span("model", "model: reasoning", at)
    if isinstance(item, CommandExecutionItem):
        return Span("command", "$ " + inert(shown_command(item.command)), at)
    if isinstance(item, FileChangeItem):
        paths = [PurePath(change.path).name for change in item.changes]
        return Span("change", "edit " + (", ".join(paths) or "files"), at)
    return Span("tool", item.type, at)


def render(timeline: Timeline, width: int, now: float) -> Text:
    """The timeline in `width` cells: a header with the turn's length, then one line per
    span — its label, its bar on the shared axis, and how long it took."""
    total = timeline.length(now)
    axis = max(width - LABEL_WIDTH - TOOK_WIDTH - 2, 8)
    text = Text()
    state = "running" if timeline.end is None else timeline.status
    text.append(f"turn {timeline.turn_id[:8]} · {state} · {duration(total * 1000)}", "bold")
    waited = sum(_took(span, now) for span in timeline.spans if span.kind == "wait")
    if waited:
        text.append(f" · waited on you {duration(waited * 1000)}", STYLES["wait"])
    for span in timeline.spans:
        text.append("\n")
        label = (
            span.label if len(span.label) <= LABEL_WIDTH else span.label[: LABEL_WIDTH - 1] + "…"
        )
        text.append(f"{label:<{LABEL_WIDTH}} ", "dim" if span.kind == "model" else "")
        start = (span.start - timeline.start) / total if total else 0.0
        end = (
            ((span.end if span.end is not None else now) - timeline.start) / total if total else 0.0
        )
        text.append(bar(start, end, axis), STYLES[span.kind])
        text.append(f" {duration(_took(span, now) * 1000):>{TOOK_WIDTH - 1}}")
    if timeline.spans:
        length = duration(total * 1000)
        rule = "─" * max(axis - 1 - len(length), 1)
        text.append(f"\n{'':<{LABEL_WIDTH}} 0{rule}{length}", "dim")
    return text


def _took(span: Span, now: float) -> float:
    return max((span.end if span.end is not None else now) - span.start, 0.0)


def bar(start: float, end: float, cells: int) -> str:
    """A bar from `start` to `end` (fractions of the axis) in `cells` cells, to an eighth of a
    cell; at least a sliver, so an instant still shows."""
    start, end = min(max(start, 0.0), 1.0), min(max(end, 0.0), 1.0)
    left = round(start * cells * 8)
    right = max(round(end * cells * 8), left + 1)
    drawn = []
    for cell in range(cells):
        cell_start, cell_end = cell * 8, cell * 8 + 8
        covered = max(0, min(right, cell_end) - max(left, cell_start))
        if covered == 0:
            drawn.append(" ")
        elif covered == 8:
            drawn.append("█")
        elif max(left, cell_start) == cell_start:
            drawn.append(EIGHTHS[covered])  # the bar's end: filled from the left
        else:
            drawn.append("▐" if covered >= 4 else "▕")  # the bar's start, inside the cell
    return "".join(drawn)
