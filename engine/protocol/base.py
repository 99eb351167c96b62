"""The base of every protocol model: camelCase on the wire, unknown fields ignored, frozen."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic.alias_generators import to_camel


class WireModel(BaseModel):
    """A value read from or written to the app-server.

    `schema_name` names the definition in the schema that `codex app-server
    generate-json-schema` writes ("Name", or "Name#variant" for one variant of a tagged
    union), so a test can check every field we read against the binary we ship.
    """

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="ignore",
        frozen=True,
        defer_build=True,
    )

    schema_name: ClassVar[str] = ""

    def to_wire(self) -> dict[str, Any]:
        """The JSON object to send, without the fields that are not set."""
        return self.model_dump(by_alias=True, exclude_none=True, mode="json")


def describe_invalid(error: ValidationError) -> str:
    """One line saying which fields were wrong, for an `Unknown…` value's `problem`."""
    parts = []
    for detail in error.errors()[:3]:
        where = ".".join(str(part) for part in detail["loc"]) or "(root)"
        parts.append(f"{where}: {detail['msg']}")
    return "; ".join(parts)


class ServerNotification(WireModel):
    """A notification; `method` is its JSON-RPC method."""

    method: ClassVar[str] = ""
