"""Hypothesis: malformed input gets a clear answer, never a crash.

- the slash-command parser: any line is a command, or a `CommandError` with a message;
- the protocol layer: any JSON shaped like a notification or a thread item (unknown types,
  wrong types in known fields) is read, as a known model or as an unknown one;
- the settings loader: any TOML text (and any bytes) gives settings, or a `SettingsError`
  naming the file;
- the screen's text helper: no control character survives `inert`;
- the filter on everything drawn: no control character reaches the terminal, in text or in a
  link, and no line changes width.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual.color import Color

from engine.commands import kinds
from engine.commands import parse as parsing
from engine.errors import SettingsError
from engine.protocol import UnknownItem, UnknownNotification
from engine.protocol.items import ITEM_TYPES, parse_item
from engine.protocol.notifications import NOTIFICATION_TYPES, parse_notification
from engine.settings_source import load_settings
from tests.reliability.report import Ledger
from tui.controls import CONTROL, DropControls
from tui.text import inert

json_values: st.SearchStrategy[Any] = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4)
    ),
    max_leaves=12,
)
FIELD_NAMES = ("threadId", "turnId", "itemId", "id", "type", "delta", "item", "turn", "status")


@st.composite
def shaped_like(draw: st.DrawFn, names: list[str]) -> tuple[str, dict[str, Any]]:
    """A known name (or an unknown one) with fields that real messages have, holding anything."""
    name = draw(st.sampled_from(names) | st.text(max_size=30))
    fields = draw(st.dictionaries(st.sampled_from(FIELD_NAMES), json_values, max_size=6))
    return name, {**fields, **draw(st.dictionaries(st.text(max_size=10), json_values, max_size=3))}


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(line=st.text(max_size=80).map(lambda rest: "/" + rest))
def test_any_slash_line_is_a_command_or_a_clear_refusal(line: str, tally: Ledger) -> None:
    with tally.counting("input", "slash-command parser"):
        parsed, refusal = parse(line)
        assert parsed is not None or refusal.strip(), "a refusal says why"


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(line=st.text(max_size=80))
def test_any_line_parses_without_crashing(line: str, tally: Ledger) -> None:
    with tally.counting("input", "slash-command parser"):
        parsed, refusal = parse(line)
        assert parsed is not None or refusal.strip()


def parse(line: str) -> tuple[kinds.Command | None, str]:
    """The command, or None and why it was refused."""
    try:
        return parsing.parse(line), ""
    except kinds.CommandError as error:
        return None, str(error)


def settings_refusal() -> str | None:
    """Why the settings were refused, or None when they loaded."""
    try:
        load_settings()
    except SettingsError as error:
        return str(error)
    return None


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(message=shaped_like(sorted(NOTIFICATION_TYPES)))
def test_any_notification_is_read_known_or_unknown(
    message: tuple[str, dict[str, Any]], tally: Ledger
) -> None:
    with tally.counting(
        "input", "protocol: notifications and items shaped like the real ones, known and unknown"
    ):
        method, params = message
        notification = parse_notification(method, msgspec.json.encode(params))
        if isinstance(notification, UnknownNotification):
            assert notification.name == method
        else:
            assert type(notification) is NOTIFICATION_TYPES[method]


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(message=shaped_like(sorted(ITEM_TYPES)) | json_values.map(lambda value: ("", value)))
def test_any_item_is_read_known_or_unknown(message: tuple[str, Any], tally: Ledger) -> None:
    with tally.counting(
        "input", "protocol: notifications and items shaped like the real ones, known and unknown"
    ):
        kind, fields = message
        raw = {**fields, "type": kind} if isinstance(fields, dict) and kind else fields
        item = parse_item(raw)
        if not isinstance(item, UnknownItem):
            assert type(item) is ITEM_TYPES[raw["type"]]
        json.dumps(msgspec.to_builtins(item))


TOML_LINES = st.sampled_from(
    [
        "[codex]",
        "[limits]",
        "[ui]",
        "[store]",
        "[providers.local]",
        'binary = "/nowhere/codex"',
        "running_conversations = 0",
        "running_conversations = -3",
        'running_conversations = "four"',
        "queued_messages = 1e309",
        'theme = "no-such-theme"',
        'notifications = "sometimes"',
        "keys = 3",
        'base_url = "not a url"',
        "path = []",
        "image_bytes = true",
        "unknown_key = 1",
        "[[codex]]",
        "= = =",
        '"unterminated',
        "\x00",
    ]
)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(TOML_LINES | st.text(max_size=30), max_size=8))
def test_any_settings_file_loads_or_is_refused_with_its_name(
    lines: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tally: Ledger
) -> None:
    with tally.counting("input", "settings loader: TOML of known keys with bad values, any bytes"):
        config = tmp_path / "config.toml"
        config.write_text("\n".join(lines), encoding="utf-8", errors="surrogatepass")
        monkeypatch.setenv("CODEX_DECK_CONFIG", str(config))
        refusal = settings_refusal()
        assert refusal is None or str(config) in refusal, f"the refusal names the file: {refusal}"


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=200))
@example(data=b'[codex]\nbinary = "\x80"\n')
def test_any_bytes_as_settings_are_refused_with_the_file_name(
    data: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tally: Ledger
) -> None:
    with tally.counting("input", "settings loader: TOML of known keys with bad values, any bytes"):
        config = tmp_path / "config.toml"
        config.write_bytes(data)
        monkeypatch.setenv("CODEX_DECK_CONFIG", str(config))
        refusal = settings_refusal()
        assert refusal is None or str(config) in refusal


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text())
def test_no_control_character_survives_inert(text: str, tally: Ledger) -> None:
    with tally.counting(
        "input", "control characters in text shown (`inert`) and drawn (the line filter)"
    ):
        shown = inert(text)
        assert not any((ord(c) < 0x20 and c not in "\t\n") or 0x7F <= ord(c) <= 0x9F for c in shown)


SEGMENTS = st.lists(
    st.builds(
        Segment,
        st.text(min_size=1, max_size=20),
        st.none() | st.builds(Style, bold=st.booleans(), link=st.none() | st.text(max_size=12)),
        st.none(),
    ),
    max_size=6,
)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(segments=SEGMENTS)
def test_no_control_character_is_drawn_and_no_line_changes_width(
    segments: list[Segment], tally: Ledger
) -> None:
    with tally.counting(
        "input", "control characters in text shown (`inert`) and drawn (the line filter)"
    ):
        drawn = DropControls().apply(segments, Color(0, 0, 0))
        for text, style, _ in drawn:
            assert CONTROL.search(text) is None
            assert style is None or style.link is None or CONTROL.search(style.link) is None
        assert sum(cell_len(text) for text, _, _ in drawn) == sum(
            cell_len(s.text) for s in segments
        )
