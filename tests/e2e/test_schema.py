"""Our protocol models against the JSON schema the shipped codex binary generates.

Every field a model reads must exist in the schema with a type the model accepts; every
field a model sends must exist with a type the schema accepts. A codex update that renames
or retypes a field fails here instead of in front of a user.
"""

from __future__ import annotations

import json
import subprocess
import types
import typing
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

import msgspec
import pytest

from engine import protocol
from engine.protocol import WireModel
from engine.protocol.items import ThreadItem
from engine.transport.binary import find_codex

ANY = frozenset({"string", "integer", "number", "boolean", "array", "object", "null"})

SENT: set[type[WireModel]] = {
    protocol.ClientInfo,
    protocol.InitializeCapabilities,
    protocol.InitializeParams,
    protocol.TextInput,
    protocol.LocalImageInput,
    protocol.ThreadStartParams,
    protocol.ThreadResumeParams,
    protocol.ThreadForkParams,
    protocol.ThreadReadParams,
    protocol.ThreadTurnsListParams,
    protocol.ThreadItemsListParams,
    protocol.ThreadListParams,
    protocol.ModelListParams,
    protocol.ApiKeyLoginParams,
    protocol.DeviceCodeLoginParams,
    protocol.CancelLoginParams,
    protocol.ThreadArchiveParams,
    protocol.ThreadCompactStartParams,
    protocol.ThreadShellCommandParams,
    protocol.FsGetMetadataParams,
    protocol.FsReadFileParams,
    protocol.FsWriteFileParams,
    protocol.FileSearchStartParams,
    protocol.ReviewStartParams,
    protocol.CommandExecParams,
    protocol.McpServerStatusListParams,
    protocol.ThreadGoalSetParams,
    protocol.ThreadGoalClearParams,
    protocol.FileSearchUpdateParams,
    protocol.FileSearchStopParams,
    protocol.TurnStartParams,
    protocol.TurnSteerParams,
    protocol.TurnInterruptParams,
    protocol.AccountReadParams,
    protocol.ConfigReadParams,
    protocol.CommandApprovalReply,
    protocol.FileChangeApprovalReply,
    protocol.UserInputAnswer,
    protocol.UserInputReply,
    protocol.ElicitationReply,
    protocol.PermissionsApprovalReply,
}


class Schema:
    """Every definition in the generated bundle, by name."""

    def __init__(self, folder: Path) -> None:
        self.definitions: dict[str, Any] = {}
        for file in folder.rglob("*.json"):
            document = json.loads(file.read_text())
            self.definitions.update(document.get("definitions", {}))
            self.definitions.setdefault(file.stem, document)

    def resolve(self, node: Any) -> Any:
        while isinstance(node, dict) and "$ref" in node:
            node = self.definitions[node["$ref"].rsplit("/", 1)[-1]]
        return node

    def definition(self, schema_name: str) -> dict[str, Any]:
        name, _, variant = schema_name.partition("#")
        node = self.resolve(self.definitions[name])
        if not variant:
            return dict(node)
        for branch in node.get("oneOf", []):
            kind = self.resolve(branch).get("properties", {}).get("type", {})
            if variant in kind.get("enum", []):
                return dict(self.resolve(branch))
        raise KeyError(f"{schema_name}: no variant {variant!r}")

    def properties(self, node: dict[str, Any]) -> tuple[dict[str, Any], set[str]]:
        """Properties and required names, including those of flattened branches."""
        found = dict(node.get("properties", {}))
        required = set(node.get("required", []))
        for key in ("allOf", "oneOf", "anyOf"):
            branches = [self.properties(self.resolve(b)) for b in node.get(key, [])]
            for more, _ in branches:
                found = {**more, **found}
            if branches and key == "allOf":
                required |= set().union(*(needed for _, needed in branches))
            elif branches:
                required |= set.intersection(*(needed for _, needed in branches))
        return found, required

    def types(self, node: Any) -> frozenset[str]:
        node = self.resolve(node)
        if node is True or node == {} or not isinstance(node, dict):
            return ANY
        if "enum" in node:
            return frozenset(_json_type(value) for value in node["enum"])
        for key in ("anyOf", "oneOf", "allOf"):
            if key in node:
                return frozenset().union(*(self.types(branch) for branch in node[key]))
        kind = node.get("type")
        if isinstance(kind, list):
            return frozenset(kind)
        if isinstance(kind, str):
            return frozenset({kind})
        return frozenset({"object"}) if "properties" in node else ANY

    def enum(self, node: Any) -> set[Any]:
        node = self.resolve(node)
        if not isinstance(node, dict):
            return set()
        values = set(node.get("enum", []))
        for key in ("anyOf", "oneOf", "allOf"):
            for branch in node.get(key, []):
                values |= self.enum(branch)
        return values


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    return "string"


def accepted(annotation: Any) -> frozenset[str]:
    """The JSON types a Python annotation takes."""
    origin = get_origin(annotation)
    if annotation is Any:
        return ANY
    if origin is typing.Annotated:
        return accepted(get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType):
        return frozenset().union(*(accepted(arg) for arg in get_args(annotation)))
    if origin is Literal:
        return frozenset(_json_type(value) for value in get_args(annotation))
    if origin is list:
        return frozenset({"array"})
    if origin is dict or annotation is dict:
        return frozenset({"object"})
    simple = {str: "string", int: "integer", bool: "boolean", float: "number", type(None): "null"}
    if annotation in simple:
        return frozenset({simple[annotation]} | ({"integer"} if annotation is float else set()))
    if isinstance(annotation, type) and issubclass(annotation, WireModel):
        return frozenset({"object"})
    if annotation is ThreadItem:  # read as any of the items, each an object
        return frozenset({"object"})
    raise AssertionError(f"no JSON type known for {annotation!r}")


def literals(annotation: Any) -> set[Any]:
    if get_origin(annotation) is Literal:
        return set(get_args(annotation))
    if get_origin(annotation) in (typing.Union, types.UnionType):
        return set().union(*(literals(arg) for arg in get_args(annotation)))
    return set()


def checked_models() -> list[type[WireModel]]:
    found: list[type[WireModel]] = []
    pending: list[type[WireModel]] = [WireModel]
    while pending:
        model = pending.pop()
        pending.extend(model.__subclasses__())
        if model.schema_name:
            found.append(model)
    return sorted(found, key=lambda model: model.__name__)


def problems_of(model: type[WireModel], schema: Schema) -> list[str]:
    node = schema.definition(model.schema_name)
    properties, required = schema.properties(node)
    sent = model in SENT
    problems = []
    for field in msgspec.structs.fields(model):
        name, wire = field.name, field.encode_name
        where = f"{model.__name__}.{name} ({model.schema_name}.{wire})"
        if wire not in properties:
            problems.append(f"{where}: not in the schema")
            continue
        theirs = schema.types(properties[wire])
        ours = accepted(field.type)
        if sent:
            extra = ours - theirs - {"null"}
            if extra:
                problems.append(f"{where}: we send {sorted(extra)}, schema takes {sorted(theirs)}")
            enum = schema.enum(properties[wire])
            unknown = literals(field.type) - enum - {None} if enum else set()
            if unknown:
                problems.append(f"{where}: values {sorted(unknown)} not in {sorted(enum)}")
        else:
            missing = theirs - ours
            if missing:
                problems.append(f"{where}: schema allows {sorted(missing)}, we read {sorted(ours)}")
            if wire not in required and field.required:
                problems.append(f"{where}: optional in the schema but required by us")
    return problems


@pytest.fixture(scope="module")
def schema(tmp_path_factory: pytest.TempPathFactory) -> Schema:
    out = tmp_path_factory.mktemp("schema")
    subprocess.run(
        [
            str(find_codex(None).path),
            "app-server",
            "generate-json-schema",
            "--experimental",
            "--out",
            str(out),
        ],
        check=True,
        capture_output=True,
    )
    return Schema(out)


@pytest.mark.parametrize("model", checked_models(), ids=lambda model: model.__name__)
def test_model_fits_the_schema_of_the_shipped_binary(
    model: type[WireModel], schema: Schema
) -> None:
    assert problems_of(model, schema) == []


def test_every_model_read_or_sent_is_checked() -> None:
    names = {model.__name__ for model in checked_models()}
    assert len(names) > 50
    assert {"AgentMessageDelta", "CommandExecutionItem", "TurnStartParams"} <= names


def test_the_check_notices_a_renamed_field(schema: Schema) -> None:
    class Renamed(WireModel):
        schema_name = "AgentMessageDeltaNotification"
        item_identifier: str

    class Retyped(WireModel):
        schema_name = "AgentMessageDeltaNotification"
        delta: int

    assert problems_of(Renamed, schema) == [
        "Renamed.item_identifier (AgentMessageDeltaNotification.itemIdentifier): not in the schema"
    ]
    assert problems_of(Retyped, schema) == [
        "Retyped.delta (AgentMessageDeltaNotification.delta): schema allows ['string'], "
        "we read ['integer']"
    ]
