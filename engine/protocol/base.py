"""The base of every protocol model: camelCase on the wire, unknown fields ignored, frozen.

The models are msgspec structs: defined and imported in a quarter of the time pydantic models
take, and read several times faster (bench/wire_types.py has the figures of both).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any, ClassVar, Self, dataclass_transform

import msgspec
from msgspec import ValidationError

__all__ = ["ServerNotification", "ValidationError", "WireModel", "describe_invalid", "reads_as"]

_READERS: dict[type, Callable[[Any], Any]] = {}
_DECODERS: dict[type, msgspec.json.Decoder[Any]] = {}
"""Each model's reader of JSON text, made when it is first used."""
"""How a field of a type msgspec cannot read by itself is read (see `reads_as`)."""


def reads_as(kind: type, reader: Callable[[Any], Any]) -> None:
    """Read a field annotated with `kind` with `reader` (which never raises): for a value
    that is one of many models by its `type`, read leniently (a thread item)."""
    _READERS[kind] = reader


def _read_field(kind: type, raw: Any) -> Any:
    reader = _READERS.get(kind)
    if reader is None:
        raise NotImplementedError(f"no reader for {kind!r}")
    return reader(raw)


@dataclass_transform(frozen_default=True, field_specifiers=(msgspec.field,))
class _Frozen(msgspec.StructMeta):
    """Every model is frozen (the checker is told so). Each model says `kw_only=True`: its
    fields are keywords, in any order (a required field may follow one with a default, as
    in the schema)."""

    def __new__(
        mcls, name: str, bases: tuple[type, ...], namespace: dict[str, Any], **options: Any
    ) -> _Frozen:
        options.setdefault("frozen", True)
        return super().__new__(mcls, name, bases, namespace, **options)


class WireModel(msgspec.Struct, metaclass=_Frozen, rename="camel", kw_only=True):
    """A value read from or written to the app-server.

    `schema_name` names the definition in the schema that `codex app-server
    generate-json-schema` writes ("Name", or "Name#variant" for one variant of a tagged
    union), so a test can check every field we read against the binary we ship.
    """

    schema_name: ClassVar[str] = ""

    @classmethod
    def read(cls, raw: Any) -> Self:
        """The model of a JSON value (as `json.loads` gives it).

        Raises:
            ValidationError: the value does not fit (`describe_invalid` says how).
        """
        return msgspec.convert(raw, cls, dec_hook=_read_field)

    @classmethod
    def read_json(cls, text: bytes | msgspec.Raw) -> Self:
        """The model of a JSON text, read straight from its bytes (no dicts on the way).

        Raises:
            ValidationError: the value does not fit.
            msgspec.DecodeError: the text is not JSON.
        """
        decoder = _DECODERS.get(cls)
        if decoder is None:
            decoder = _DECODERS[cls] = msgspec.json.Decoder(cls, dec_hook=_read_field)
        model: Self = decoder.decode(text)
        return model

    def replace(self, **changes: Any) -> Self:
        """A copy with `changes` (by field name)."""
        return msgspec.structs.replace(self, **changes)

    def as_dict(self) -> dict[str, Any]:
        """Each field's value by its name (not the wire's): keyword arguments for a model
        that takes the same fields."""
        return msgspec.structs.asdict(self)

    def to_wire(self) -> dict[str, Any]:
        """The JSON object to send, without the fields that are not set."""
        wired = _wire(self)
        assert isinstance(wired, dict)
        return wired


@cache
def _names(kind: type[msgspec.Struct]) -> tuple[tuple[str, str], ...]:
    """Each field's name, and its name on the wire."""
    return tuple((field.name, field.encode_name) for field in msgspec.structs.fields(kind))


def _wire(value: Any) -> Any:
    if isinstance(value, msgspec.Struct):
        fields = ((wire, getattr(value, name)) for name, wire in _names(type(value)))
        return {wire: _wire(field) for wire, field in fields if field is not None}
    if isinstance(value, list | tuple):
        return [_wire(part) for part in value]
    if isinstance(value, dict):
        return {key: _wire(part) for key, part in value.items()}
    return value


def describe_invalid(error: ValidationError) -> str:
    """One line saying which field was wrong, for an `Unknown…` value's `problem`."""
    return str(error)


class ServerNotification(WireModel, kw_only=True):
    """A notification; `method` is its JSON-RPC method."""

    method: ClassVar[str] = ""
