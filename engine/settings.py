"""codex-deck's settings: `config.toml`, overridden by `CODEX_DECK_…` environment variables.

The file lives in platformdirs' user config dir (`codex-deck/config.toml`), or wherever
`CODEX_DECK_CONFIG` points. Nested keys come from the environment with `__`:
`CODEX_DECK_CODEX__MODEL=gpt-5.5` sets `[codex] model`.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import tomllib
from pathlib import Path
from typing import Any, Literal

import platformdirs
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from engine.errors import SettingsError

APP_NAME = "codex-deck"
CONFIG_ENV = "CODEX_DECK_CONFIG"


class _Section(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class ProviderSettings(_Section):
    """A model provider codex can use (`[providers.NAME]`)."""

    base_url: str
    wire_api: str = "responses"
    env_key: str | None = None
    """Environment variable that holds the API key; without one, no auth header is sent."""
    request_max_retries: int | None = None
    stream_max_retries: int | None = None
    supports_websockets: bool | None = None


class CodexSettings(_Section):
    """How to run codex (`[codex]`)."""

    binary: Path | None = None
    """The codex binary; else the bundled one, else `codex` on PATH."""
    home: Path | None = None
    """CODEX_HOME; unset means codex's own, so an existing login is reused."""
    model: str | None = None
    reasoning_effort: Literal["none", "minimal", "low", "medium", "high", "xhigh"] | None = None
    approval_policy: Literal["untrusted", "on-request", "never"] = "on-request"
    sandbox: Literal["read-only", "workspace-write", "danger-full-access"] = "workspace-write"
    provider: str | None = None
    """A name under [providers]."""
    cwd: Path | None = None
    """Working directory of new conversations; unset means where codex-deck started."""
    config: list[str] = []
    """Extra `-c key=value` overrides passed to codex as they are."""


class LimitsSettings(_Section):
    """How much codex-deck takes on at once (`[limits]`)."""

    running_conversations: int = Field(default=4, ge=1)
    """Conversations that may run a turn at the same time."""
    queued_messages: int = Field(default=5, ge=0)
    """Messages that may wait behind a running turn, per conversation."""
    trace_events_per_turn: int = Field(default=4000, ge=10)
    """Events kept in a turn's trace; past it the head and tail are kept."""
    side_answer_chars: int = Field(default=20_000, ge=100)
    """Characters a side answer may have; past it the answer is cut and a notice says so."""
    restarts: int = Field(default=6, ge=0)
    """Failed starts in a row after which codex-deck stops restarting a codex that died."""
    image_bytes: int = Field(default=20 * 1024 * 1024, ge=1)
    """The largest image that may be attached to a message."""
    images_per_message: int = Field(default=10, ge=1)
    """Images that may be attached to one message."""
    command_output_bytes: int = Field(default=64 * 1024 * 1024, ge=1024)
    """A command's output kept in its file (the screen keeps only the latest 256 KB)."""


class StoreSettings(_Section):
    """Where codex-deck keeps its conversations (`[store]`)."""

    path: Path | None = None
    """The SQLite file; unset means `codex-deck/codex-deck.sqlite3` in the user data dir."""


class UiSettings(_Section):
    """How codex-deck looks and behaves (`[ui]`)."""

    theme: str = "codex-deck-dark"
    notifications: Literal["both", "bell", "osc9", "off"] = "both"
    """How a conversation out of view that needs an answer is announced."""
    keys: dict[str, str] = {}
    """Key overrides by binding id, e.g. `"trace.toggle" = "ctrl+g"` (see F1)."""


def config_path() -> Path:
    """Where the settings file is read from."""
    configured = os.environ.get(CONFIG_ENV)
    if configured:
        return Path(configured).expanduser()
    return Path(platformdirs.user_config_dir(APP_NAME)) / "config.toml"


class Settings(BaseSettings):
    """All of codex-deck's settings. Build with `load_settings()` to get clear errors."""

    model_config = SettingsConfigDict(
        env_prefix="CODEX_DECK_",
        env_nested_delimiter="__",
        extra="ignore",
        frozen=True,
    )

    codex: CodexSettings = CodexSettings()
    providers: dict[str, ProviderSettings] = {}
    limits: LimitsSettings = LimitsSettings()
    store: StoreSettings = StoreSettings()
    ui: UiSettings = UiSettings()

    @model_validator(mode="after")
    def _provider_is_defined(self) -> Settings:
        name = self.codex.provider
        if name is not None and name not in self.providers:
            known = ", ".join(sorted(self.providers)) or "none are defined"
            raise ValueError(f"codex.provider = {name!r} names no [providers.{name}] ({known})")
        return self

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings, env_settings, TomlConfigSettingsSource(settings_cls, config_path()))


def load_settings() -> tuple[Settings, list[str]]:
    """Read the settings file and the environment.

    Returns:
        The settings, and warnings about keys in the file that codex-deck does not know.
    Raises:
        SettingsError: one message naming the file (or variable), the key and the problem.
    """
    path = config_path()
    data = _read_toml(path)
    try:
        settings = Settings()
    except ValidationError as error:
        raise SettingsError(_explain(error, path, data)) from None
    return settings, _unknown_keys(data, path)


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as file:
            return tomllib.load(file)
    except FileNotFoundError:
        return {}
    except tomllib.TOMLDecodeError as error:
        raise SettingsError(f"{path}: not valid TOML: {error}") from None
    except UnicodeDecodeError as error:
        raise SettingsError(f"{path}: not UTF-8 text (byte {error.start} cannot be read)") from None
    except OSError as error:
        raise SettingsError(f"{path}: cannot be read: {error.strerror}") from None


def _explain(error: ValidationError, path: Path, data: dict[str, Any]) -> str:
    detail = error.errors()[0]
    location = [str(part) for part in detail["loc"]]
    key = ".".join(location) or "(settings)"
    if _present(data, location):
        where = str(path)
    else:
        env_name = "CODEX_DECK_" + "__".join(location).upper()
        where = f"{path} or ${env_name}"
    value = detail.get("input")
    got = f" (got {value!r})" if location and not isinstance(value, dict) else ""
    message = detail["msg"].removeprefix("Value error, ")
    return f"{where}: {key}: {message}{got}"


def _present(data: dict[str, Any], location: list[str]) -> bool:
    node: Any = data
    for part in location:
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True


def _unknown_keys(data: dict[str, Any], path: Path) -> list[str]:
    sections: dict[str, type[BaseModel] | None] = {
        name: field.annotation if isinstance(field.annotation, type) else None
        for name, field in Settings.model_fields.items()
    }
    warnings = []
    for section, body in data.items():
        if section not in sections:
            warnings.append(_unknown(path, section, section, list(sections)))
            continue
        if section == "providers" and isinstance(body, dict):
            for name, provider in body.items():
                if isinstance(provider, dict):
                    warnings += _unknown_fields(
                        path, f"providers.{name}", provider, ProviderSettings
                    )
            continue
        model = sections[section]
        if model is not None and isinstance(body, dict):
            warnings += _unknown_fields(path, section, body, model)
    return warnings


def _unknown_fields(
    path: Path, section: str, body: dict[str, Any], model: type[BaseModel]
) -> list[str]:
    fields = list(model.model_fields)
    return [_unknown(path, f"{section}.{key}", key, fields) for key in body if key not in fields]


def _unknown(path: Path, dotted: str, key: str, valid: list[str]) -> str:
    nearest = difflib.get_close_matches(key, valid, n=1)
    hint = f"; did you mean {nearest[0]!r}?" if nearest else ""
    return f"{path}: unknown key {dotted!r} is ignored{hint}"


SECRET_KEY = re.compile(r"(token|secret|password|api_key|apikey)", re.IGNORECASE)
MASK = "********"


def settings_report(settings: Settings) -> list[tuple[str, str, str]]:
    """Every effective setting as (dotted key, value, where it came from: default, the file,
    or the environment variable that set it); values of secret-looking keys are masked."""
    data = _read_toml(config_path())
    rows: list[tuple[str, str, str]] = []
    for key, value in _flatten(settings.model_dump(mode="json")):
        parts = key.split(".")
        variable = "CODEX_DECK_" + "__".join(parts).upper()
        if variable in os.environ:
            source = f"env ${variable}"
        elif _present(data, parts):
            source = "file"
        else:
            source = "default"
        shown = MASK if SECRET_KEY.search(parts[-1]) and value is not None else json.dumps(value)
        rows.append((key, shown, source))
    return rows


def _flatten(value: Any, prefix: str = "") -> list[tuple[str, Any]]:
    if isinstance(value, dict) and value:
        found = []
        for key, item in value.items():
            found += _flatten(item, f"{prefix}.{key}" if prefix else str(key))
        return found
    return [(prefix, value)]
