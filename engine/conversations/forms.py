"""Forms an MCP server asks to have filled (elicitation): their fields, and checking answers.

A form is a flat JSON schema: an object whose properties are strings (optionally with a
format, length bounds or a choice of values), numbers, integers or booleans, some required.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

FieldKind = Literal["string", "number", "integer", "boolean", "choice"]


class FormField(msgspec.Struct, frozen=True):
    name: str
    kind: FieldKind
    title: str
    description: str = ""
    required: bool = False
    choices: tuple[tuple[str, str], ...] = ()
    """(value, label) pairs for a choice."""
    minimum: float | None = None
    maximum: float | None = None
    min_length: int | None = None
    max_length: int | None = None
    default: Any = None


def form_fields(schema: Any) -> list[FormField]:
    """The fields of a requested schema (unknown property shapes are shown as text)."""
    if not isinstance(schema, dict) or not isinstance(schema.get("properties"), dict):
        return []
    required = set(schema.get("required") or [])
    fields = []
    for name, spec in schema["properties"].items():
        spec = spec if isinstance(spec, dict) else {}
        fields.append(
            FormField(
                name=name,
                kind=_kind(spec),
                title=str(spec.get("title") or name),
                description=str(spec.get("description") or ""),
                required=name in required,
                choices=_choices(spec),
                minimum=spec.get("minimum"),
                maximum=spec.get("maximum"),
                min_length=spec.get("minLength"),
                max_length=spec.get("maxLength"),
                default=spec.get("default"),
            )
        )
    return fields


def _kind(spec: dict[str, Any]) -> FieldKind:
    if "enum" in spec or "oneOf" in spec:
        return "choice"
    kinds: dict[str, FieldKind] = {"number": "number", "integer": "integer", "boolean": "boolean"}
    return kinds.get(str(spec.get("type")), "string")


def _choices(spec: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    if isinstance(spec.get("oneOf"), list):
        return tuple(
            (str(option.get("const")), str(option.get("title") or option.get("const")))
            for option in spec["oneOf"]
            if isinstance(option, dict)
        )
    values = spec.get("enum") or []
    names = spec.get("enumNames") or values
    return tuple((str(value), str(label)) for value, label in zip(values, names, strict=False))


def form_problems(schema: Any, content: Any) -> list[str]:
    """What is wrong with `content` as an answer to the form (empty when it is fine)."""
    fields = form_fields(schema)
    if not fields:
        return []
    if not isinstance(content, dict):
        return ["the answer must be a JSON object of field values"]
    problems = []
    known = {field.name for field in fields}
    problems += [f"{name}: not a field of this form" for name in content if name not in known]
    for field in fields:
        if field.name not in content or content[field.name] in (None, ""):
            if field.required:
                problems.append(f"{field.title}: required")
            continue
        problem = _field_problem(field, content[field.name])
        if problem:
            problems.append(f"{field.title}: {problem}")
    return problems


def _field_problem(field: FormField, value: Any) -> str | None:
    if field.kind == "boolean":
        return None if isinstance(value, bool) else "must be true or false"
    if field.kind in ("number", "integer"):
        numeric = isinstance(value, int | float) and not isinstance(value, bool)
        if not numeric or (field.kind == "integer" and not float(value).is_integer()):
            return f"must be {'a whole number' if field.kind == 'integer' else 'a number'}"
        if field.minimum is not None and value < field.minimum:
            return f"must be at least {field.minimum:g}"
        if field.maximum is not None and value > field.maximum:
            return f"must be at most {field.maximum:g}"
        return None
    if not isinstance(value, str):
        return "must be text"
    if field.kind == "choice" and value not in {choice for choice, _ in field.choices}:
        return "must be one of " + ", ".join(label for _, label in field.choices)
    if field.min_length is not None and len(value) < field.min_length:
        return f"must be at least {field.min_length} characters"
    if field.max_length is not None and len(value) > field.max_length:
        return f"must be at most {field.max_length} characters"
    return None
