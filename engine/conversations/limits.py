"""The account's usage limits, as codex last said them (after each model response)."""

from __future__ import annotations

from engine import protocol as wire
from engine.events import LimitWindow

WINDOW_NAMES = {300: "5-hour", 1440: "daily", 10080: "weekly"}


def window_name(minutes: int | None) -> str:
    if minutes is None:
        return "usage"
    if minutes in WINDOW_NAMES:
        return WINDOW_NAMES[minutes]
    return f"{minutes // 60}-hour" if minutes % 60 == 0 else f"{minutes}-minute"


class UsageLimits:
    def __init__(self) -> None:
        self._snapshots: dict[str, wire.RateLimitSnapshot] = {}

    def take(self, snapshot: wire.RateLimitSnapshot) -> tuple[LimitWindow, ...]:
        """Keep what codex said of one limit family; returns every window known now."""
        self._snapshots[snapshot.limit_id or ""] = snapshot
        return self.windows()

    def windows(self) -> tuple[LimitWindow, ...]:
        found = []
        for snapshot in self._snapshots.values():
            for window in (snapshot.primary, snapshot.secondary):
                if window is None:
                    continue
                name = window_name(window.window_duration_mins)
                if snapshot.limit_name:
                    name = f"{snapshot.limit_name} {name}"
                found.append(
                    LimitWindow(
                        name=name,
                        used_percent=window.used_percent,
                        resets_at=float(window.resets_at) if window.resets_at else None,
                    )
                )
        return tuple(found)
