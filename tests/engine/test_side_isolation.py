"""What a side chat's codex is started with, and how an old codex is recognised."""

from __future__ import annotations

import json
from pathlib import Path

from engine.side_chats.isolation import REQUIRED_FIELDS, missing_fields, side_overrides, toml_key


def write_schema(root: Path, fork_fields: list[str], thread_fields: list[str]) -> Path:
    v2 = root / "v2"
    v2.mkdir(parents=True)
    (v2 / "ThreadForkParams.json").write_text(
        json.dumps({"properties": {name: {} for name in fork_fields}})
    )
    thread: dict[str, object] = {"properties": {name: {} for name in thread_fields}}
    (v2 / "ThreadForkResponse.json").write_text(json.dumps({"definitions": {"Thread": thread}}))
    return root


def test_a_schema_with_every_field_is_enough(tmp_path: Path) -> None:
    schema = write_schema(
        tmp_path, [*REQUIRED_FIELDS["ThreadForkParams"], "extra"], list(REQUIRED_FIELDS["Thread"])
    )
    assert missing_fields(schema) == []


def test_missing_fields_are_named(tmp_path: Path) -> None:
    fork = [f for f in REQUIRED_FIELDS["ThreadForkParams"] if f != "excludeTurns"]
    schema = write_schema(tmp_path, fork, ["id"])
    assert missing_fields(schema) == [
        "ThreadForkParams.excludeTurns",
        "Thread.ephemeral",
        "Thread.forkedFromId",
    ]


def test_no_schema_at_all_misses_everything(tmp_path: Path) -> None:
    expected = sum(len(fields) for fields in REQUIRED_FIELDS.values())
    assert len(missing_fields(tmp_path)) == expected


def test_every_tool_is_off_and_each_mcp_server_is_disabled() -> None:
    overrides = side_overrides(["tracker", "my server"])
    for feature in ("shell_tool", "unified_exec", "apps", "plugins", "memories", "multi_agent"):
        assert f"features.{feature}=false" in overrides
    assert 'web_search="disabled"' in overrides
    assert "agents.max_depth=0" in overrides
    assert "mcp_servers.tracker.enabled=false" in overrides
    assert 'mcp_servers."my server".enabled=false' in overrides


def test_config_keys_are_quoted_only_when_toml_needs_it() -> None:
    assert toml_key("tracker-2_x") == "tracker-2_x"
    assert toml_key("a.b") == '"a.b"'
    assert toml_key("ümlaut") == '"ümlaut"'
