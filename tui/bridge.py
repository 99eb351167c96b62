"""The messages between the engine's events and the screen: the app reads the engine's events
batch by batch and posts each to the main screen, which says when a conversation out of view
needs the user (the app rings and notifies)."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from engine.events import EngineEvent


@dataclass
class EngineBatch(Message):
    """Events from the engine, in order, as one batch."""

    events: tuple[EngineEvent, ...]


@dataclass
class AttentionNeeded(Message):
    """A conversation out of view waits for an answer (the app rings and notifies)."""

    text: str
