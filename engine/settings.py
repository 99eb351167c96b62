"""codex-deck's settings: `config.toml`, overridden by `CODEX_DECK_…` environment variables.

The file lives in platformdirs' user config dir (`codex-deck/config.toml`), or wherever
`CODEX_DECK_CONFIG` points. Nested keys come from the environment with `__`:
`CODEX_DECK_CODEX__MODEL=gpt-5.5` sets `[codex] model`.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import os
import re
import tomllib
import typing
from dataclasses import dataclass, field
from pathlib import Path
from types import NoneType, UnionType
from typing import Any, Literal

import platformdirs

from engine.errors import SettingsError

APP_NAME = "codex-deck"
CONFIG_ENV = "CODEX_DECK_CONFIG"
ENV_PREFIX = "CODEX_DECK_"
TRUE = {"true", "1", "yes", "on"}
FALSE = {"false", "0", "no", "off"}


@dataclass(frozen=True)
class ProviderSettings:
    """A model provider codex can use (`[providers.NAME]`)."""

    base_url: str
    wire_api: str = "responses"
    env_key: str | None = None
    """Environment variable that holds the API key; without one, no auth header is sent."""
    request_max_retries: int | None = None
    stream_max_retries: int | None = None
    supports_websockets: bool | None = None


@dataclass(frozen=True)
class CodexSettings:
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
    config: list[str] = field(default_factory=list)
    """Extra `-c key=value` overrides passed to codex as they are."""


def _at_least(minimum: int, default: int) -> Any:
    return field(default=default, metadata={"at_least": minimum})


@dataclass(frozen=True)
class LimitsSettings:
    """How much codex-deck takes on at once (`[limits]`)."""

    running_conversations: int = _at_least(1, 4)
    """Conversations that may run a turn at the same time."""
    queued_messages: int = _at_least(0, 5)
    """Messages that may wait behind a running turn, per conversation."""
    trace_events_per_turn: int = _at_least(10, 4000)
    """Events kept in a turn's trace; past it the head and tail are kept."""
    side_answer_chars: int = _at_least(100, 20_000)
    """Characters a side answer may have; past it the answer is cut and a notice says so."""
    restarts: int = _at_least(0, 6)
    """Failed starts in a row after which codex-deck stops restarting a codex that died."""
    image_bytes: int = _at_least(1, 20 * 1024 * 1024)
    """The largest image that may be attached to a message."""
    images_per_message: int = _at_least(1, 10)
    """Images that may be attached to one message."""
    command_output_bytes: int = _at_least(1024, 64 * 1024 * 1024)
    """A command's output kept in its file (the screen keeps only the latest 256 KB)."""
    line_bytes: int = _at_least(1024 * 1024, 64 * 1024 * 1024)
    """The longest message from codex that is read; a longer one is skipped, with a notice
    (codex-deck holds no more than this of it meanwhile)."""


@dataclass(frozen=True)
class StoreSettings:
    """Where codex-deck keeps its conversations (`[store]`)."""

    path: Path | None = None
    """The SQLite file; unset means `codex-deck/codex-deck.sqlite3` in the user data dir."""


@dataclass(frozen=True)
class UiSettings:
    """How codex-deck looks and behaves (`[ui]`)."""

    theme: str = "codex-deck-dark"
    notifications: Literal["both", "bell", "osc9", "off"] = "both"
    """How a conversation out of view that needs an answer is announced."""
    keys: dict[str, str] = field(default_factory=dict)
    """Key overrides by binding id, e.g. `"trace.toggle" = "ctrl+r"` (see F1)."""


def config_path() -> Path:
    """Where the settings file is read from."""
    configured = os.environ.get(CONFIG_ENV)
    if configured:
        return Path(configured).expanduser()
    return Path(platformdirs.user_config_dir(APP_NAME)) / "config.toml"


@dataclass(frozen=True)
class Settings:
    """All of codex-deck's settings (`Settings()` is the defaults). `load_settings()` reads
    them from the file and the environment, with clear errors.

    Plain dataclasses checked by `_read` (not pydantic): they are read before the first
    paint, and pydantic's import and model building would cost that paint about 200 ms."""

    codex: CodexSettings = field(default_factory=CodexSettings)
    providers: dict[str, ProviderSettings] = field(default_factory=dict)
    limits: LimitsSettings = field(default_factory=LimitsSettings)
    store: StoreSettings = field(default_factory=StoreSettings)
    ui: UiSettings = field(default_factory=UiSettings)


class _Invalid(Exception):
    """A value that does not fit its setting: where it is, what is wrong, what it was."""

    def __init__(self, location: list[str], problem: str, value: Any = None) -> None:
        super().__init__(problem)
        self.location = location
        self.problem = problem
        self.value = value


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
        settings = _read(Settings, _merged(data, _from_environment()), [])
        _check_provider(settings)
        settings = _with_cwd_checked(settings)
    except _Invalid as invalid:
        raise SettingsError(_explain(invalid, path, data)) from None
    return settings, _unknown_keys(data, path)


def _check_provider(settings: Settings) -> None:
    name = settings.codex.provider
    if name is not None and name not in settings.providers:
        known = ", ".join(sorted(settings.providers)) or "none are defined"
        problem = f"{name!r} names no [providers.{name}] table ({known})"
        raise _Invalid(["codex", "provider"], problem)


def _with_cwd_checked(settings: Settings) -> Settings:
    """The settings with `codex.cwd` (if set) expanded (`~`), once it is seen to be a
    directory."""
    given = settings.codex.cwd
    if given is None:
        return settings
    cwd = given.expanduser()
    if not cwd.is_dir():
        raise _Invalid(["codex", "cwd"], "is not a directory", str(given))
    return dataclasses.replace(settings, codex=dataclasses.replace(settings.codex, cwd=cwd))


def _read(section: type[Any], data: Any, location: list[str]) -> Any:
    """A settings dataclass from a table, each value checked against its field's type."""
    if not isinstance(data, dict):
        raise _Invalid(location, "should be a table", data)
    hints = typing.get_type_hints(section)
    values = {}
    for setting in dataclasses.fields(section):
        if setting.name not in data:
            required = setting.default is dataclasses.MISSING
            if required and setting.default_factory is dataclasses.MISSING:
                raise _Invalid([*location, setting.name], "is required")
            continue
        where = [*location, setting.name]
        value = _value(hints[setting.name], data[setting.name], where)
        minimum = setting.metadata.get("at_least")
        if minimum is not None and value < minimum:
            raise _Invalid(where, f"should be at least {minimum}", value)
        values[setting.name] = value
    return section(**values)


def _value(kind: Any, value: Any, where: list[str]) -> Any:
    """`value` as the type `kind` (text from the environment converted where it can be)."""
    origin, arguments = typing.get_origin(kind), typing.get_args(kind)
    if origin is UnionType or origin is typing.Union:
        if value is None and NoneType in arguments:
            return None
        (kind,) = [argument for argument in arguments if argument is not NoneType]
        return _value(kind, value, where)
    if origin is Literal:
        if value not in arguments:
            choices = [repr(choice) for choice in arguments]
            listed = ", ".join(choices[:-1]) + f" or {choices[-1]}"
            raise _Invalid(where, f"should be {listed}", value)
        return value
    if origin is list:
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise _Invalid(where, "should be a list of strings", value)
        return list(value)
    if origin is dict:
        if not isinstance(value, dict):
            raise _Invalid(where, "should be a table", value)
        item_kind = arguments[1]
        return {
            str(key): _value(item_kind, item, [*where, str(key)]) for key, item in value.items()
        }
    if isinstance(kind, type) and dataclasses.is_dataclass(kind):
        return _read(kind, value, where)
    return _scalar(kind, value, where)


def _scalar(kind: Any, value: Any, where: list[str]) -> Any:
    if kind is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in TRUE | FALSE:
            return value.lower() in TRUE
        raise _Invalid(where, "should be true or false", value)
    if kind is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, str) and re.fullmatch(r"\s*[-+]?\d+\s*", value):
            return int(value)
        raise _Invalid(where, "should be a whole number", value)
    if kind is str:
        if isinstance(value, str):
            return value
        raise _Invalid(where, "should be a string", value)
    if kind is Path:
        if isinstance(value, str):
            return Path(value)
        raise _Invalid(where, "should be a path (a string)", value)
    raise TypeError(f"no reader for settings of type {kind!r}")


def _from_environment() -> dict[str, Any]:
    """`CODEX_DECK_SECTION__KEY=value` as `{"section": {"key": value}}` (names are not case
    sensitive); a value written as a JSON list or table is read as one."""
    found: dict[str, Any] = {}
    for name, raw in os.environ.items():
        if not name.upper().startswith(ENV_PREFIX):
            continue
        path = name[len(ENV_PREFIX) :].lower().split("__")
        if path[0] not in SECTIONS:
            continue
        node = found
        for part in path[:-1]:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                break
        else:
            node[path[-1]] = _env_value(raw)
    return found


def env_name(location: list[str]) -> str:
    """The environment variable that sets the setting at `location` (["codex", "model"])."""
    return ENV_PREFIX + "__".join(location).upper()


def _env_value(raw: str) -> Any:
    if raw.lstrip().startswith(("[", "{")):
        try:
            value = json.loads(raw)
        except ValueError:
            return raw
        if isinstance(value, list | dict):
            return value
    return raw


def _merged(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """`base` with `over` laid on it, tables merged key by key."""
    merged = dict(base)
    for key, value in over.items():
        below = merged.get(key)
        if isinstance(below, dict) and isinstance(value, dict):
            merged[key] = _merged(below, value)
        else:
            merged[key] = value
    return merged


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


def _explain(invalid: _Invalid, path: Path, data: dict[str, Any]) -> str:
    location = invalid.location
    key = ".".join(location)
    where = str(path) if _present(data, location) else f"{path} or ${env_name(location)}"
    value = invalid.value
    got = f" (got {value!r})" if value is not None and not isinstance(value, dict) else ""
    return f"{where}: {key}: {invalid.problem}{got}"


def _present(data: dict[str, Any], location: list[str]) -> bool:
    node: Any = data
    for part in location:
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True


def _unknown_keys(data: dict[str, Any], path: Path) -> list[str]:
    warnings = []
    for section, body in data.items():
        if section not in SECTIONS:
            warnings.append(_unknown(path, section, section, list(SECTIONS)))
            continue
        if section == "providers" and isinstance(body, dict):
            for name, provider in body.items():
                if isinstance(provider, dict):
                    warnings += _unknown_fields(
                        path, f"providers.{name}", provider, ProviderSettings
                    )
            continue
        if isinstance(body, dict):
            warnings += _unknown_fields(path, section, body, SECTIONS[section])
    return warnings


def _unknown_fields(path: Path, section: str, body: dict[str, Any], kind: type[Any]) -> list[str]:
    fields = [setting.name for setting in dataclasses.fields(kind)]
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
    plain = json.loads(json.dumps(dataclasses.asdict(settings), default=str))
    for key, value in _flatten(plain):
        parts = key.split(".")
        variable = env_name(parts)
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


SECTIONS: dict[str, type[Any]] = {
    "codex": CodexSettings,
    "providers": ProviderSettings,
    "limits": LimitsSettings,
    "store": StoreSettings,
    "ui": UiSettings,
}
"""The file's tables, and the settings each holds (`[providers.NAME]`: a provider)."""
