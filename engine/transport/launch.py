"""What the settings mean for codex: its command line, environment and thread defaults."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from engine.settings import Settings

if TYPE_CHECKING:
    from engine.protocol import ThreadSettings


class Launch(msgspec.Struct, frozen=True):
    """How to start `codex app-server`."""

    binary: Path
    cwd: Path
    codex_home: Path | None = None
    """CODEX_HOME for the process; None keeps codex's own."""
    overrides: tuple[str, ...] = ()
    """`-c key=value` pairs, values in TOML syntax."""
    env: Mapping[str, str] = msgspec.field(default_factory=dict)
    """Variables added to the inherited environment."""

    def argv(self) -> list[str]:
        """The command line."""
        args = [str(self.binary), "app-server"]
        for override in self.overrides:
            args += ["-c", override]
        return args


def toml_value(value: str | int | bool) -> str:
    """A value in TOML syntax, for a `-c` override."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return json.dumps(value, ensure_ascii=False)


def codex_overrides(settings: Settings) -> tuple[str, ...]:
    """The `-c` overrides the settings ask for (provider, reasoning effort, extra config)."""
    codex = settings.codex
    overrides: list[str] = []
    if codex.reasoning_effort is not None:
        overrides.append(f"model_reasoning_effort={toml_value(codex.reasoning_effort)}")
    if codex.provider is not None:
        overrides.append(f"model_provider={toml_value(codex.provider)}")
    for name, provider in settings.providers.items():
        # Every provider is defined, so a conversation can switch to any (/provider).
        table = f"model_providers.{name}"
        overrides.append(f"{table}.name={toml_value(name)}")
        overrides.append(f"{table}.base_url={toml_value(provider.base_url)}")
        overrides.append(f"{table}.wire_api={toml_value(provider.wire_api)}")
        optional: dict[str, str | int | bool | None] = {
            "env_key": provider.env_key,
            "request_max_retries": provider.request_max_retries,
            "stream_max_retries": provider.stream_max_retries,
            "supports_websockets": provider.supports_websockets,
        }
        for key, value in optional.items():
            if value is not None:
                overrides.append(f"{table}.{key}={toml_value(value)}")
    overrides.extend(codex.config)
    return tuple(overrides)


def thread_defaults(settings: Settings, cwd: Path) -> ThreadSettings:
    """What every new thread is started with.

    The approval policy goes per thread: codex refuses `untrusted` in its config.
    """
    # Imported here: the rest of this module runs before the protocol's models are loaded
    # (codex is started at once, while codex-deck imports them).
    from engine.protocol import ThreadSettings

    codex = settings.codex
    return ThreadSettings(
        cwd=str(cwd),
        model=codex.model,
        approval_policy=codex.approval_policy,
        sandbox=codex.sandbox,
    )


def launch_for(settings: Settings, binary: Path, cwd: Path) -> Launch:
    """The launch of an app-server for these settings."""
    home = settings.codex.home.expanduser() if settings.codex.home is not None else None
    return Launch(binary=binary, cwd=cwd, codex_home=home, overrides=codex_overrides(settings))
