"""What makes a side chat safe: the config its private codex runs with, and the check that
this codex has every protocol field a side chat relies on (refused if not: fail closed)."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import anyio

from engine.errors import CodexDeckError
from engine.transport.launch import toml_value

FEATURES_OFF = (
    "shell_tool",
    "unified_exec",
    "apps",
    "plugins",
    "memories",
    "image_generation",
    "multi_agent",
    "multi_agent_v2",
    "goals",
    "view_image",
    "hooks",
    "browser_use",
    "computer_use",
    "in_app_browser",
    "tool_suggest",
    "skill_search",
    "sleep_tool",
    "realtime_conversation",
)
"""Codex features that give the model a tool or run something on its behalf."""

SETTINGS_OFF = (
    ("web_search", "disabled"),
    # A fork keeps the parent's multi-agent tools even with the feature off; a depth of 0
    # is what removes them.
    ("agents.max_depth", 0),
)

BASE_INSTRUCTIONS = """\
You are answering a side question about a conversation between a user and a coding agent.
The conversation so far is above. You have no tools: you cannot run commands, read or change
files, browse, or start other agents. Answer only from what the conversation shows. When it
does not show enough to answer, say so plainly and say what the user could ask the agent in the
main conversation instead. Be brief and concrete."""

DEVELOPER_INSTRUCTIONS = """\
This is a side chat: nothing said here reaches the main conversation. Do not try to continue
the main task, do not promise to make changes, and do not call tools."""

REQUIRED_FIELDS = {
    "ThreadForkParams": (
        "threadId",
        "ephemeral",
        "excludeTurns",
        "model",
        "modelProvider",
        "sandbox",
        "approvalPolicy",
        "baseInstructions",
        "developerInstructions",
    ),
    "Thread": ("id", "ephemeral", "forkedFromId"),
}
"""Protocol fields a side chat cannot do without, by schema definition."""


class SideChatUnsupported(CodexDeckError):
    """This codex lacks something side chats rely on; nothing was started."""


def side_overrides(mcp_servers: Iterable[str]) -> tuple[str, ...]:
    """`-c` overrides for the side chat's codex: every tool off, each MCP server disabled."""
    overrides = [f"features.{name}=false" for name in FEATURES_OFF]
    overrides += [f"{key}={toml_value(value)}" for key, value in SETTINGS_OFF]
    overrides += [f"mcp_servers.{toml_key(name)}.enabled=false" for name in sorted(mcp_servers)]
    return tuple(overrides)


def toml_key(name: str) -> str:
    """A config key segment: bare when TOML allows it, else quoted."""
    bare = name.replace("-", "").replace("_", "").isalnum() and name.isascii()
    return name if bare else json.dumps(name, ensure_ascii=False)


def missing_fields(schema_dir: Path) -> list[str]:
    """The required fields the generated schema in `schema_dir` does not have."""
    return missing_in(
        _load(schema_dir / "v2" / "ThreadForkParams.json"),
        _load(schema_dir / "v2" / "ThreadForkResponse.json"),
    )


def missing_in(fork: dict[str, Any], response: dict[str, Any]) -> list[str]:
    """The required fields the schema's `ThreadForkParams` (`fork`) and `ThreadForkResponse`
    (`response`) do not have."""
    found = response.get("definitions")
    thread = found.get("Thread") if isinstance(found, dict) else None
    definitions = {"ThreadForkParams": fork, "Thread": thread if isinstance(thread, dict) else {}}
    missing = []
    for name, fields in REQUIRED_FIELDS.items():
        properties = definitions[name].get("properties")
        known = properties if isinstance(properties, dict) else {}
        missing += [f"{name}.{field}" for field in fields if field not in known]
    return missing


def refused(missing: list[str]) -> SideChatUnsupported:
    """What says that this codex lacks `missing`."""
    return SideChatUnsupported(
        "This codex is too old for side chats: its protocol has no "
        + ", ".join(missing)
        + ". Update Codex to use them."
    )


def _load(path: Path) -> dict[str, Any]:
    try:
        loaded = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return loaded if isinstance(loaded, dict) else {}


async def check_support(binary: Path, codex_home: Path | None) -> None:
    """Generate this codex's protocol schema and check it has every field side chats need.

    Raises:
        SideChatUnsupported: a field is missing, or the schema could not be generated.
    """
    with tempfile.TemporaryDirectory(prefix="codex-deck-schema-") as scratch:
        out = Path(scratch)
        command = [str(binary), "app-server", "generate-json-schema", "--experimental"]
        env = dict(os.environ)
        if codex_home is not None:
            env["CODEX_HOME"] = str(codex_home)
        try:
            done = await anyio.run_process(
                [*command, "--out", str(out)],
                check=False,
                stdin=subprocess.DEVNULL,
                env=env,
            )
        except OSError as error:
            raise SideChatUnsupported(f"cannot run {binary}: {error.strerror}") from None
        if done.returncode != 0:
            raise SideChatUnsupported(
                f"{binary} could not describe its protocol (exit {done.returncode}), so side "
                "chats are off: update Codex."
            )
        missing = missing_fields(out)
    if missing:
        raise refused(missing)
