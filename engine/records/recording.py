"""Engine events as JSON objects and back: for trace exports, recordings and replays.

`event_to_json` writes an event with its type name; `event_from_json` reads it back into the
same frozen dataclass (thread items through `parse_item`, so unknown types stay readable).

A recording is a JSONL file: a header line (`HEADER`, with the format's version) and then one
event per line, each with its time (`at`), written as the session goes so a crash keeps what
came before it.
"""

from __future__ import annotations

import json
import os
import time
import types
import typing
from collections.abc import Callable, Iterable
from functools import cache, partial
from pathlib import Path
from typing import Any

import anyio
import msgspec

from engine import events
from engine.protocol import WireModel, parse_item
from engine.transport.fanout import Subscription
from engine.version import __version__

RECORDING_FORMAT = "codex-deck-recording"
RECORDING_VERSION = 1

EVENT_TYPES: dict[str, type[events.EngineEvent]] = {
    cls.__name__: cls
    for cls in vars(events).values()
    if isinstance(cls, type)
    and issubclass(cls, events.EngineEvent)
    and cls is not events.EngineEvent
}


class RecordingError(ValueError):
    """A JSON object that is not a recorded engine event, or a file that is not a recording."""


def recording_header() -> dict[str, Any]:
    """The first line of a recording."""
    return {"format": RECORDING_FORMAT, "version": RECORDING_VERSION, "codex_deck": __version__}


async def write_recording(
    path: Path,
    prelude: Iterable[events.EngineEvent],
    stream: Subscription[events.EngineEvent],
    redact: Callable[[str], str],
    stopped: Callable[[], str] = lambda: "",
) -> int:
    """Write a recording of `prelude` and then of every batch until the stream ends, each
    line through `redact` (known secrets never reach the file); each batch is on disk
    before the next is awaited (the files an `@` found are left out: a replay has no message
    box to show them in). When the stream has ended, `stopped()` says why the recording
    stops before the session does (empty: it does not), written last as a notice. Returns
    how many events were written.

    Raises:
        OSError: the file could not be written (what was written before stays).
    """
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(descriptor, 0o600)  # private, like the store: it holds the whole conversation
    async with anyio.wrap_file(os.fdopen(descriptor, "w", encoding="utf-8")) as file:
        lines = [json.dumps(recording_header()), *(redact(_line(event)) for event in prelude)]
        written = len(lines) - 1
        last_seq = 0
        await file.write("\n".join(lines) + "\n")
        await file.flush()
        while True:
            try:
                batch = await stream.batches()
            except StopAsyncIteration:
                break
            kept = [event for event in batch if not isinstance(event, events.FilesFound)]
            last_seq = max([last_seq, *(event.seq for event in kept)])
            await file.write("".join(redact(_line(event)) + "\n" for event in kept))
            await file.flush()
            written += len(kept)
        why = stopped()
        if why:
            stamp = events.Stamp(seq=last_seq + 1, at=time.time(), conversation_id=None)
            said = events.Notice(**stamp, level="warning", text=why)
            await file.write(redact(_line(said)) + "\n")
            written += 1
    return written


def _line(event: events.EngineEvent) -> str:
    return json.dumps(event_to_json(event), ensure_ascii=False)


def read_recording(path: Path) -> list[events.EngineEvent]:
    """The events of a recording written by `write_recording`.

    Raises:
        RecordingError: naming the file, the line and what is wrong (not a recording, a newer
            format, a broken line).
    """
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise RecordingError(f"{path}: cannot be read: {error}") from None
    first = _json(path, 1, lines[0]) if lines else None
    if not isinstance(first, dict) or first.get("format") != RECORDING_FORMAT:
        raise RecordingError(f"{path}: not a codex-deck recording (no recording header on line 1)")
    version = first.get("version")
    if not isinstance(version, int) or version > RECORDING_VERSION:
        made_by = first.get("codex_deck", "a newer codex-deck")
        raise RecordingError(
            f"{path}: recorded in format {version!r} by codex-deck {made_by}; this codex-deck "
            f"({__version__}) reads format {RECORDING_VERSION}. Update codex-deck to replay it."
        )
    recorded = []
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        data = _json(path, number, line)
        try:
            recorded.append(event_from_json(data))
        except RecordingError as error:
            raise RecordingError(f"{path}, line {number}: {error}") from None
    return recorded


def _json(path: Path, number: int, line: str) -> Any:
    try:
        return json.loads(line)
    except json.JSONDecodeError as error:
        raise RecordingError(f"{path}, line {number}: not JSON ({error.msg})") from None


def event_to_json(event: events.EngineEvent) -> dict[str, Any]:
    """An event as a JSON object, with its type name."""
    return {"type": type(event).__name__, **_plain(event)}


def _plain(value: Any) -> Any:
    if isinstance(value, WireModel):
        return msgspec.to_builtins(value)
    if isinstance(value, msgspec.Struct):
        return {f.name: _plain(getattr(value, f.name)) for f in msgspec.structs.fields(value)}
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


Convert = Callable[[Any], Any]
"""Turns a JSON value into the value of one field."""


@cache
def _fields(cls: type) -> tuple[tuple[str, Convert], ...]:
    """Each field of the event (or the struct in one) `cls` with how its JSON value is read,
    worked out once per class (a store's trace holds thousands of events to read back at
    start)."""
    hints = typing.get_type_hints(cls, vars(events))
    return tuple(
        (field.name, _converter(hints[field.name])) for field in msgspec.structs.fields(cls)
    )


def _build(cls: type, data: dict[str, Any]) -> Any:
    return cls(**{name: convert(data[name]) for name, convert in _fields(cls) if name in data})


def _converter(annotation: Any) -> Convert:
    """How a JSON value is read for a field of type `annotation` (None stays None)."""
    arguments = typing.get_args(annotation)
    inner: Convert | None = None
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        options = [arg for arg in arguments if arg is not type(None)]
        if any(_is_item(arg) for arg in arguments):
            inner = parse_item
        elif len(options) == 1:
            inner = _converter(options[0])
    elif typing.get_origin(annotation) is tuple:
        element = _converter(arguments[0])
        inner = lambda raw: tuple(map(element, raw))  # noqa: E731
    elif isinstance(annotation, type) and issubclass(annotation, WireModel):
        inner = annotation.read
    elif isinstance(annotation, type) and issubclass(annotation, msgspec.Struct):
        inner = partial(_build, annotation)
    if inner is None:
        return _same
    convert = inner
    return lambda raw: None if raw is None else convert(raw)


def _same(raw: Any) -> Any:
    return raw


def _is_item(annotation: Any) -> bool:
    return isinstance(annotation, type) and annotation.__name__ == "UnknownItem"
