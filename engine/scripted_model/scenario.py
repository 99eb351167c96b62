"""Scenarios: what the scripted model answers, as data.

A scenario file is TOML with `[[scenario]]` tables. Each scenario has a `name`, a `match`
regular expression tried against the latest user text, a `description`, and a list of
`[[scenario.reply]]` tables: reply N answers the model request that follows N tool calls
in the current turn. One scenario has `fallback = true` and answers everything else; its
text may hold `{scenarios}`, replaced by the list of scenarios.

A reply does one of: stream `text` (with an optional `reasoning` summary, `chunk` characters
per delta, `pace_ms` between deltas, `repeat` times over), run `exec` (asking for approval
when it has a `justification`, offering `prefix_rule` as a rule to remember), apply a `patch`
(apply_patch through exec_command), `ask` questions (request_user_input: plan mode only),
`call` another of codex's tools (in a `namespace`, as an MCP server's) with `arguments`,
`fail` with a message (response.failed), or `cut` the stream before it completes.
`hold = true` keeps the stream open after its text until the model is released or the client
goes away.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any

from engine.errors import CodexDeckError


class ScenarioError(CodexDeckError):
    """A scenario file cannot be used."""


@dataclass(frozen=True, slots=True)
class Reply:
    """The model's answer to one request."""

    text: str = ""
    reasoning: str = ""
    chunk: int = 16
    pace_ms: int = 0
    repeat: int = 1
    messages: int = 1
    """The text is sent as this many separate message items (each the whole text, with
    `{part}` replaced by the message's number)."""
    exec: str | None = None
    justification: str | None = None
    prefix_rule: tuple[str, ...] = ()
    """With `justification`: the command prefix codex offers to remember as a rule."""
    patch: str | None = None
    ask: tuple[dict[str, Any], ...] = ()
    """Questions for `request_user_input` (codex allows it in plan mode only)."""
    call: str | None = None
    """One of codex's tools, by name (as `update_goal`), called with `arguments`."""
    namespace: str | None = None
    """The namespace of the tool called, if it is in one (an MCP server's: `mcp__NAME`)."""
    arguments: dict[str, Any] | None = None
    limit_used: int | None = None
    """Say, in the response's headers, that this much (percent) of a 5-hour usage limit and a
    fifth of it of the weekly one are used, as OpenAI's servers do."""
    fail: str | None = None
    cut: bool = False
    hold: bool = False

    @property
    def full_text(self) -> str:
        return self.text * self.repeat


@dataclass(frozen=True, slots=True)
class Scenario:
    name: str
    description: str
    pattern: re.Pattern[str] | None
    replies: tuple[Reply, ...]


@dataclass(frozen=True, slots=True)
class Script:
    """All scenarios, in the order they are tried, and the fallback."""

    scenarios: tuple[Scenario, ...]
    fallback: Scenario

    def choose(self, user_text: str) -> Scenario:
        """The first scenario whose pattern matches, else the fallback."""
        for scenario in self.scenarios:
            if scenario.pattern is not None and scenario.pattern.search(user_text):
                return scenario
        return self.fallback

    def menu(self) -> str:
        """One line per scenario, for the fallback's `{scenarios}`."""
        return "\n".join(f"- **{s.name}**: {s.description}" for s in self.scenarios)


_REPLY_TYPES: dict[str, type] = {
    "text": str,
    "reasoning": str,
    "chunk": int,
    "pace_ms": int,
    "repeat": int,
    "messages": int,
    "exec": str,
    "justification": str,
    "prefix_rule": list,
    "patch": str,
    "ask": list,
    "call": str,
    "namespace": str,
    "arguments": dict,
    "limit_used": int,
    "fail": str,
    "cut": bool,
    "hold": bool,
}
_SCENARIO_KEYS = {"name", "description", "match", "fallback", "reply"}
_ACTIONS = ("exec", "patch", "fail", "ask", "call")


def builtin_files() -> list[Traversable]:
    """The scenario files shipped with codex-deck."""
    folder = resources.files("engine.scripted_model").joinpath("scenarios")
    return sorted(
        (entry for entry in folder.iterdir() if entry.name.endswith(".toml")),
        key=lambda entry: entry.name,
    )


def load_script(files: Iterable[Traversable] | None = None) -> Script:
    """Read scenario files (the built-in ones by default).

    Raises:
        ScenarioError: naming the file and scenario at fault.
    """
    scenarios: list[Scenario] = []
    fallback: Scenario | None = None
    for file in builtin_files() if files is None else files:
        try:
            data = tomllib.loads(file.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as error:
            raise ScenarioError(f"{file.name}: {error}") from None
        for table in data.get("scenario", []):
            scenario, is_fallback = _scenario(file.name, table)
            if is_fallback:
                fallback = scenario
            else:
                scenarios.append(scenario)
    if fallback is None:
        raise ScenarioError("no scenario has fallback = true")
    return Script(tuple(scenarios), fallback)


def _scenario(file: str, table: dict[str, Any]) -> tuple[Scenario, bool]:
    name = table.get("name")
    if not isinstance(name, str):
        raise ScenarioError(f"{file}: a scenario has no name")
    where = f"{file}: scenario {name!r}"
    unknown = set(table) - _SCENARIO_KEYS
    if unknown:
        raise ScenarioError(f"{where}: unknown keys {sorted(unknown)}")
    match = table.get("match")
    try:
        pattern = re.compile(match) if isinstance(match, str) else None
    except re.error as error:
        raise ScenarioError(f"{where}: bad match pattern: {error}") from None
    is_fallback = table.get("fallback") is True
    if pattern is None and not is_fallback:
        raise ScenarioError(f"{where}: needs a match pattern or fallback = true")
    replies = tuple(_reply(where, reply) for reply in table.get("reply", []))
    if not replies:
        raise ScenarioError(f"{where}: has no reply")
    return Scenario(name, str(table.get("description", "")), pattern, replies), is_fallback


def _reply(where: str, table: dict[str, Any]) -> Reply:
    for key, value in table.items():
        expected = _REPLY_TYPES.get(key)
        if expected is None:
            raise ScenarioError(f"{where}: unknown reply key {key!r}")
        if type(value) is not expected:
            raise ScenarioError(f"{where}: {key} must be a {expected.__name__}")
    actions = [key for key in _ACTIONS if key in table]
    if len(actions) > 1:
        raise ScenarioError(f"{where}: a reply does one of {_ACTIONS}, not {actions}")
    values = dict(table)
    for key in ("prefix_rule", "ask"):
        if key in values:
            values[key] = tuple(values[key])
    reply = Reply(**values)
    if reply.chunk < 1 or reply.repeat < 1 or reply.pace_ms < 0:
        raise ScenarioError(f"{where}: chunk and repeat must be at least 1, pace_ms at least 0")
    return reply
