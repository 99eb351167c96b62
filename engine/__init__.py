"""codex-deck's engine: drives the Codex app-server. Never imports textual, rich or tui.

This is its face for front ends: with `engine.events`, `engine.protocol`, `engine.settings`
(and `engine.settings_source`, which reads them), `engine.errors`, `engine.results`,
`engine.frontend`, `engine.replay` and the slash commands' parser `engine.commands.parse` with
its commands `engine.commands.kinds`, the names below are all a front end imports (a contract
in pyproject.toml keeps it so). Each is imported on first use, from the room that holds it, so
`import engine` costs nothing at start-up.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from engine.version import __version__ as __version__

if TYPE_CHECKING:
    from engine.commands.parse import COMMANDS as COMMANDS
    from engine.commands.parse import Usage as Usage
    from engine.conversations.diffs import DiffOf as DiffOf
    from engine.conversations.diffs import DiffUnavailable as DiffUnavailable
    from engine.conversations.diffs import DiffView as DiffView
    from engine.conversations.diffs import FileDiff as FileDiff
    from engine.conversations.forms import FormField as FormField
    from engine.conversations.forms import form_fields as form_fields
    from engine.conversations.forms import form_problems as form_problems
    from engine.conversations.interactions import Answer as Answer
    from engine.conversations.interactions import Approve as Approve
    from engine.conversations.interactions import ApproveScope as ApproveScope
    from engine.conversations.interactions import Cancel as Cancel
    from engine.conversations.interactions import Decline as Decline
    from engine.conversations.interactions import Reply as Reply
    from engine.conversations.review import Finding as Finding
    from engine.conversations.review import findings_of as findings_of
    from engine.conversations.session import SessionInfo as SessionInfo
    from engine.engine import Attach as Attach
    from engine.engine import Engine as Engine
    from engine.images import IMAGE_SUFFIXES as IMAGE_SUFFIXES
    from engine.records.export import write_private as write_private
    from engine.records.outputs import KeptOutput as KeptOutput
    from engine.records.recording import RecordingError as RecordingError
    from engine.records.recording import event_to_json as event_to_json
    from engine.records.recording import read_recording as read_recording
    from engine.records.recording import write_recording as write_recording
    from engine.records.search import SearchHit as SearchHit
    from engine.records.search import excerpt as excerpt
    from engine.records.search import item_texts as item_texts
    from engine.records.search import matches as matches
    from engine.records.store import default_path as default_path
    from engine.transport.appserver import greet as greet
    from engine.transport.binary import find_codex as find_codex
    from engine.transport.fanout import Subscription as Subscription
    from engine.transport.launch import launch_for as launch_for
    from engine.transport.offline import DemoPlace as DemoPlace
    from engine.transport.process import Spawned as Spawned
    from engine.transport.process import spawn as spawn
    from engine.transport.websocket import connect as connect
    from engine.transport.websocket import running_daemon as running_daemon

_EXPORTS = {
    "Attach": "engine.engine",
    "Engine": "engine.engine",
    "find_codex": "engine.transport.binary",
    "launch_for": "engine.transport.launch",
    "greet": "engine.transport.appserver",
    "DemoPlace": "engine.transport.offline",
    "Spawned": "engine.transport.process",
    "spawn": "engine.transport.process",
    "connect": "engine.transport.websocket",
    "running_daemon": "engine.transport.websocket",
    "Subscription": "engine.transport.fanout",
    "RecordingError": "engine.records.recording",
    "event_to_json": "engine.records.recording",
    "read_recording": "engine.records.recording",
    "write_recording": "engine.records.recording",
    "default_path": "engine.records.store",
    "SearchHit": "engine.records.search",
    "excerpt": "engine.records.search",
    "item_texts": "engine.records.search",
    "matches": "engine.records.search",
    "KeptOutput": "engine.records.outputs",
    "write_private": "engine.records.export",
    "COMMANDS": "engine.commands.parse",
    "Usage": "engine.commands.parse",
    "Answer": "engine.conversations.interactions",
    "Approve": "engine.conversations.interactions",
    "ApproveScope": "engine.conversations.interactions",
    "Cancel": "engine.conversations.interactions",
    "Decline": "engine.conversations.interactions",
    "Reply": "engine.conversations.interactions",
    "FormField": "engine.conversations.forms",
    "form_fields": "engine.conversations.forms",
    "form_problems": "engine.conversations.forms",
    "SessionInfo": "engine.conversations.session",
    "DiffOf": "engine.conversations.diffs",
    "DiffUnavailable": "engine.conversations.diffs",
    "DiffView": "engine.conversations.diffs",
    "FileDiff": "engine.conversations.diffs",
    "Finding": "engine.conversations.review",
    "findings_of": "engine.conversations.review",
    "IMAGE_SUFFIXES": "engine.images",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'engine' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
