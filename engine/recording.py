"""Engine events as JSON objects and back: for trace exports, recordings and replays.

`event_to_json` writes an event with its type name; `event_from_json` reads it back into the
same frozen dataclass (thread items through `parse_item`, so unknown types stay readable).
"""

from __future__ import annotations

import dataclasses
import types
import typing
from functools import cache
from typing import Any

from pydantic import BaseModel

from engine import events
from engine.protocol import parse_item

EVENT_TYPES: dict[str, type[events.EngineEvent]] = {
    cls.__name__: cls
    for cls in vars(events).values()
    if isinstance(cls, type)
    and issubclass(cls, events.EngineEvent)
    and cls is not events.EngineEvent
}


class RecordingError(ValueError):
    """A JSON object that is not a recorded engine event."""


def event_to_json(event: events.EngineEvent) -> dict[str, Any]:
    """An event as a JSON object, with its type name."""
    return {"type": type(event).__name__, **_plain(event)}


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True)
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
    return value


def event_from_json(data: Any) -> events.EngineEvent:
    """Read an event written by `event_to_json`.

    Raises:
        RecordingError: saying what does not fit.
    """
    if not isinstance(data, dict):
        raise RecordingError("an event must be a JSON object")
    name = data.get("type")
    cls = EVENT_TYPES.get(name) if isinstance(name, str) else None
    if cls is None:
        raise RecordingError(f"unknown event type {name!r}")
    try:
        event = _build(cls, data)
    except (TypeError, ValueError, KeyError) as error:
        raise RecordingError(f"{name}: {error}") from None
    assert isinstance(event, events.EngineEvent)
    return event


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls, vars(events))


def _build(cls: type, data: dict[str, Any]) -> Any:
    hints = _hints(cls)
    values = {}
    for field in dataclasses.fields(cls):
        if field.name in data:
            values[field.name] = _value(hints[field.name], data[field.name])
    return cls(**values)


def _value(annotation: Any, raw: Any) -> Any:
    origin = typing.get_origin(annotation)
    arguments = typing.get_args(annotation)
    if raw is None:
        return None
    if origin in (typing.Union, types.UnionType):
        if any(_is_item(arg) for arg in arguments):
            return parse_item(raw)
        options = [arg for arg in arguments if arg is not type(None)]
        return _value(options[0], raw) if len(options) == 1 else raw
    if origin is tuple:
        inner = arguments[0]
        return tuple(_value(inner, item) for item in raw)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation.model_validate(raw)
    if isinstance(annotation, type) and dataclasses.is_dataclass(annotation):
        return _build(annotation, raw)
    return raw


def _is_item(annotation: Any) -> bool:
    return isinstance(annotation, type) and annotation.__name__ == "UnknownItem"
