"""codex-deck's engine: drives the Codex app-server. Never imports textual, rich or tui.

Names are imported on first use, so `import engine` costs nothing at start-up.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from engine.version import __version__

if TYPE_CHECKING:
    from engine.engine import Engine
    from engine.errors import (
        CodexDeckError,
        CodexNotFound,
        CodexTooOld,
        ConnectionClosed,
        RpcError,
        SettingsError,
    )
    from engine.results import CommandResult, SubmitOutcome
    from engine.settings import Settings, load_settings
    from engine.transport.appserver import AppServer, open_app_server, spawn_app_server

_EXPORTS = {
    "Engine": "engine.engine",
    "CommandResult": "engine.results",
    "SubmitOutcome": "engine.results",
    "AppServer": "engine.transport.appserver",
    "open_app_server": "engine.transport.appserver",
    "spawn_app_server": "engine.transport.appserver",
    "CodexDeckError": "engine.errors",
    "CodexNotFound": "engine.errors",
    "CodexTooOld": "engine.errors",
    "ConnectionClosed": "engine.errors",
    "RpcError": "engine.errors",
    "SettingsError": "engine.errors",
    "Settings": "engine.settings",
    "load_settings": "engine.settings",
}

__all__ = [
    "AppServer",
    "CodexDeckError",
    "CodexNotFound",
    "CodexTooOld",
    "CommandResult",
    "ConnectionClosed",
    "Engine",
    "RpcError",
    "Settings",
    "SettingsError",
    "SubmitOutcome",
    "__version__",
    "load_settings",
    "open_app_server",
    "spawn_app_server",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'engine' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
