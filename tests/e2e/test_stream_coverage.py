"""Every notification and item type in the schema of the codex under test is either read into
a type codex-deck shows, or listed (with why) as shown nowhere: a codex that adds one fails
here, by name, instead of its messages quietly reaching only the trace."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from engine.protocol.ignored import IGNORED_NOTIFICATIONS
from engine.protocol.items import ITEM_TYPES
from engine.protocol.notifications import NOTIFICATION_TYPES
from engine.transport.binary import find_codex


@pytest.fixture(scope="module")
def notifications(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("schema")
    binary = str(find_codex(None).path)
    subprocess.run(
        [binary, "app-server", "generate-json-schema", "--experimental", "--out", str(out)],
        check=True,
        capture_output=True,
    )
    document: dict[str, Any] = json.loads(Path(out, "ServerNotification.json").read_text())
    return document


def methods(document: dict[str, Any]) -> set[str]:
    return {branch["properties"]["method"]["enum"][0] for branch in document["oneOf"]}


def item_types(document: dict[str, Any]) -> set[str]:
    union = document["definitions"]["ThreadItem"]["oneOf"]
    return {branch["properties"]["type"]["enum"][0] for branch in union}


def test_every_notification_is_read_or_listed_with_why(notifications: dict[str, Any]) -> None:
    sent = methods(notifications)
    assert len(sent) > 80
    neither = sent - set(NOTIFICATION_TYPES) - set(IGNORED_NOTIFICATIONS)
    assert sorted(neither) == []
    assert all(reason.strip() for reason in IGNORED_NOTIFICATIONS.values())


def test_every_item_type_is_read(notifications: dict[str, Any]) -> None:
    assert sorted(item_types(notifications) - set(ITEM_TYPES)) == []


def test_the_list_names_only_what_codex_sends(notifications: dict[str, Any]) -> None:
    """A method codex no longer sends leaves the list (ones only the newer codex sends stay:
    both run in CI)."""
    newer_only = {"thread/section/changed", "thread/search/partial"}
    stale = set(IGNORED_NOTIFICATIONS) - methods(notifications) - newer_only
    assert sorted(stale) == []
