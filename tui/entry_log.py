"""What a conversation's transcript holds, made from its events: an entry for each message,
command, change, request, notice and turn, in the order they came (the transcript gives the
latest of them widgets)."""

from __future__ import annotations

import msgspec

from engine.events import (
    EngineEvent,
    InteractionRequested,
    InteractionResolved,
    ItemCompleted,
    ItemDelta,
    ItemStarted,
    Notice,
    PlanUpdated,
    TurnCompleted,
)
from engine.protocol import (
    AgentMessageItem,
    CommandExecutionItem,
    FileChangeItem,
    ReasoningItem,
    ReviewModeItem,
    UserMessageItem,
)
from tui.entries import (
    AgentEntry,
    ApprovalEntry,
    CommandEntry,
    Entry,
    FileChangeEntry,
    NoticeEntry,
    PlanEntry,
    ReasoningEntry,
    ReviewEntry,
    ToolEntry,
    TurnEntry,
    UserEntry,
)


def joined_deltas(events: list[EngineEvent]) -> list[EngineEvent]:
    """`events` with each run of deltas to the same part of the same item joined into one:
    a fast stream brings hundreds in a batch, and each taken alone copies the text so far."""
    joined: list[EngineEvent] = []
    run: list[ItemDelta] = []
    for event in [*events, None]:
        if isinstance(event, ItemDelta) and run and _same_part(run[-1], event):
            run.append(event)
            continue
        if len(run) > 1:
            joined.append(msgspec.structs.replace(run[-1], text="".join(d.text for d in run)))
        else:
            joined += run
        run = []
        if isinstance(event, ItemDelta):
            run.append(event)
        elif event is not None:
            joined.append(event)
    return joined


def _same_part(one: ItemDelta, other: ItemDelta) -> bool:
    return (one.item_id, one.kind, one.index) == (other.item_id, other.kind, other.index)


class EntryLog:
    """A transcript's entries, kept up to date by its conversation's events."""

    def __init__(self) -> None:
        self.entries: list[Entry] = []
        self.by_key: dict[str, Entry] = {}
        self.waiting: dict[str, ApprovalEntry] = {}
        """Requests not answered yet, oldest first."""
        self.changed: list[Entry] = []
        """Entries shown already that changed since the transcript last drew them."""
        self.streamed: list[tuple[Entry, str]] = []
        """Text streamed into entries since the transcript last took it, in order."""
        self._plans: dict[str, PlanEntry] = {}
        self._users_by_turn: set[str] = set()

    def apply(self, event: EngineEvent) -> None:
        """Take one event into the entries."""
        if isinstance(event, ItemDelta):
            self._delta(event)
        elif isinstance(event, ItemStarted):
            self._started(event)
        elif isinstance(event, ItemCompleted):
            self._completed(event)
        elif isinstance(event, TurnCompleted):
            self._add(TurnEntry(key=f"turn-{event.turn_id}", event=event))
        elif isinstance(event, Notice):
            self._add(NoticeEntry(key=f"notice-{event.seq}", level=event.level, text=event.text))
        elif isinstance(event, InteractionRequested):
            info = event.interaction
            key = f"interaction-{info.id}"
            if key not in self.by_key:
                self.waiting[key] = ApprovalEntry(key=key, info=info)
                self._add(self.waiting[key])
        elif isinstance(event, InteractionResolved):
            entry = self.by_key.get(f"interaction-{event.interaction_id}")
            self.waiting.pop(f"interaction-{event.interaction_id}", None)
            if isinstance(entry, ApprovalEntry):
                outcome = event.outcome.replace("_", " ")
                detail = event.detail
                entry.resolution = detail if detail.startswith(outcome) else f"{outcome} — {detail}"
                self.changed.append(entry)
        elif isinstance(event, PlanUpdated):
            plan = self._plans.get(event.turn_id)
            if plan is None:
                self._plans[event.turn_id] = plan = PlanEntry(
                    key=f"plan-{event.turn_id}", event=event
                )
                self._add(plan)
            else:
                plan.event = event
                self.changed.append(plan)

    def put_before(self, events: list[EngineEvent]) -> int:
        """Take earlier events (a conversation's history, read further back) in front of the
        entries; how many entries they added."""
        earlier = EntryLog()
        for event in events:
            earlier.apply(event)
        new = [entry for entry in earlier.entries if entry.key not in self.by_key]
        self.entries[:0] = new
        self.by_key.update((entry.key, entry) for entry in new)
        return len(new)

    def drop_first(self, count: int) -> None:
        """Let go of the first `count` entries (read back later with `put_before`)."""
        gone = self.entries[:count]
        del self.entries[:count]
        for entry in gone:
            self.by_key.pop(entry.key, None)
        self._plans = {turn: plan for turn, plan in self._plans.items() if plan.key in self.by_key}

    def _add(self, entry: Entry) -> None:
        if entry.key not in self.by_key:
            self.by_key[entry.key] = entry
            self.entries.append(entry)

    def _started(self, event: ItemStarted) -> None:
        item = event.item
        if isinstance(item, UserMessageItem):
            steered = event.turn_id in self._users_by_turn
            self._users_by_turn.add(event.turn_id)
            entry = UserEntry(key=item.id, text=item.text, steered=steered, images=item.images)
            self._add(entry)
        elif isinstance(item, AgentMessageItem):
            self._add(AgentEntry(key=item.id, text=item.text))
        elif isinstance(item, ReasoningItem):
            self._add(ReasoningEntry(key=item.id, text="\n\n".join(item.summary)))
        elif isinstance(item, CommandExecutionItem):
            self._add(CommandEntry(key=item.id, item=item, status=item.status))
        elif isinstance(item, FileChangeItem):
            self._add(FileChangeEntry(key=item.id, item=item, status=item.status))

    def _delta(self, event: ItemDelta) -> None:
        entry = self.by_key.get(event.item_id)
        if entry is None:
            if event.kind == "agent_message":
                entry = AgentEntry(key=event.item_id)
            elif event.kind in ("reasoning_summary", "reasoning_text"):
                entry = ReasoningEntry(key=event.item_id)
            else:
                return
            self._add(entry)
        if isinstance(entry, AgentEntry | ReasoningEntry):
            entry.text += event.text
        elif isinstance(entry, CommandEntry):
            entry.add_output(event.text)
        else:
            return
        self.streamed.append((entry, event.text))

    def _completed(self, event: ItemCompleted) -> None:
        item = event.item
        entry = self.by_key.get(item.id)
        if entry is None:
            if isinstance(item, UserMessageItem):
                self._add(UserEntry(key=item.id, text=item.text, images=item.images))
            elif isinstance(item, AgentMessageItem):
                self._add(AgentEntry(key=item.id, text=item.text))
            elif isinstance(item, CommandExecutionItem):
                entry = CommandEntry(key=item.id, item=item, status=event.status)
                entry.set_output(item.aggregated_output or "")
                self._add(entry)
            elif isinstance(item, FileChangeItem):
                self._add(FileChangeEntry(key=item.id, item=item, status=event.status))
            elif isinstance(item, ReviewModeItem) and item.type == "exitedReviewMode":
                self._add(ReviewEntry(key=item.id, item=item))
            elif not isinstance(item, ReasoningItem):
                self._add(ToolEntry(key=item.id, item=item, status=event.status))
            return
        if isinstance(entry, AgentEntry) and isinstance(item, AgentMessageItem) and item.text:
            entry.text = item.text
        elif isinstance(entry, ReasoningEntry) and isinstance(item, ReasoningItem) and item.summary:
            entry.text = "\n\n".join(item.summary)
        elif isinstance(entry, CommandEntry):
            if isinstance(item, CommandExecutionItem):
                entry.item = item
                # Codex's completed item carries the first MiB of the output at most: when
                # more came as deltas, the screen keeps their latest part.
                final = item.aggregated_output
                if final is not None and len(final) >= entry.streamed:
                    entry.set_output(final)
            entry.status = event.status
        elif isinstance(entry, FileChangeEntry):
            if isinstance(item, FileChangeItem):
                entry.item = item
            entry.status = event.status
        self.changed.append(entry)
