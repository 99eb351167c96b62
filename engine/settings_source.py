"""The settings read and checked: the file's tables under the `CODEX_DECK_…` environment,
merged and validated by pydantic-settings against the dataclasses of `engine.settings`.

Imported after the first paint (pydantic is some 100 ms of imports); the subcommands and a
run without a terminal read the settings first, as nothing is painted there.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import os
import re
from pathlib import Path
from typing import Any, TypeVar, cast
from urllib.parse import urlsplit

import pydantic
from pydantic import ConfigDict, ValidationError
from pydantic_core import ErrorDetails
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from engine.errors import SettingsError
from engine.settings import (
    ENV_PREFIX,
    HOST_SCHEMES,
    LOCAL_HOST,
    SECTIONS,
    CodexSettings,
    HostSettings,
    LimitsSettings,
    ProviderSettings,
    Settings,
    StoreSettings,
    UiSettings,
    config_path,
    env_name,
    is_loopback,
    read_toml,
)

_T = TypeVar("_T")
SECRET_KEY = re.compile(r"(token|secret|password|api_key|apikey)(?!_file$)", re.IGNORECASE)
"""Keys whose values are masked in the report (a `..._file` key names where a secret is read
from: its path is shown)."""
MASK = "********"


class _Sources(BaseSettings):
    """The environment over the file: the file's tables come as the keywords."""

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        env_nested_delimiter="__",
        case_sensitive=False,
        extra="ignore",
        frozen=True,
    )

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return env_settings, init_settings


def _checked(kind: type[Any]) -> Any:
    """`kind` as a pydantic dataclass: its fields' types are checked (a subclass; `kind`
    stays as it is)."""
    return pydantic.dataclasses.dataclass(kind, frozen=True, config=ConfigDict(extra="ignore"))


# Each section's default is an empty table: pydantic-settings checks the defaults too.
_PROVIDERS: Any = dict[str, _checked(ProviderSettings)]  # type: ignore[misc]
_HOSTS: Any = dict[str, _checked(HostSettings)]  # type: ignore[misc]
_Read: type[Any] = pydantic.create_model(
    "_Read",
    __base__=_Sources,
    codex=(_checked(CodexSettings), {}),
    providers=(_PROVIDERS, {}),
    limits=(_checked(LimitsSettings), {}),
    store=(_checked(StoreSettings), {}),
    ui=(_checked(UiSettings), {}),
    hosts=(_HOSTS, {}),
)


def load_settings() -> tuple[Settings, list[str]]:
    """Read the settings file and the environment.

    Returns:
        The settings, and warnings about keys in the file that codex-deck does not know.
    Raises:
        SettingsError: one message naming the file (or variable), the key and the problem.
    """
    path = config_path()
    data = read_toml(path)
    try:
        read: Any = _Read(**{name: table for name, table in data.items() if name in SECTIONS})
    except ValidationError as invalid:
        raise SettingsError(_explain(invalid.errors()[0], path, data)) from None
    settings = Settings(
        codex=_plain(CodexSettings, read.codex),
        providers={name: _plain(ProviderSettings, p) for name, p in read.providers.items()},
        limits=_plain(LimitsSettings, read.limits),
        store=_plain(StoreSettings, read.store),
        ui=_plain(UiSettings, read.ui),
        hosts={name: _plain(HostSettings, h) for name, h in read.hosts.items()},
    )
    _check_provider(settings, path, data)
    _check_hosts(settings, path, data)
    problems = _unknown_keys(data, path) + _unusable_paths(settings, path)
    return _with_cwd_checked(settings, path, data), problems


def _plain(kind: type[_T], checked: Any) -> _T:
    """A checked section as the plain dataclass the rest of codex-deck knows."""
    fields = dataclasses.fields(cast("Any", kind))
    return kind(**{setting.name: getattr(checked, setting.name) for setting in fields})


def _check_provider(settings: Settings, path: Path, data: dict[str, Any]) -> None:
    name = settings.codex.provider
    if name is not None and name not in settings.providers:
        known = ", ".join(sorted(settings.providers)) or "none are defined"
        problem = f"{name!r} names no [providers.{name}] table ({known})"
        raise SettingsError(_said(["codex", "provider"], problem, None, path, data))


def _check_hosts(settings: Settings, path: Path, data: dict[str, Any]) -> None:
    """Each host's name and url can be used; a token file is given only where it is read."""
    for name, host in settings.hosts.items():
        if name == LOCAL_HOST:
            problem = f"{LOCAL_HOST!r} is the codex on this machine; name the host otherwise"
            raise SettingsError(_said(["hosts", name], problem, None, path, data))
        if not name.replace("-", "").replace("_", "").isalnum():
            problem = "a host's name is letters, digits, - and _"
            raise SettingsError(_said(["hosts", name], problem, None, path, data))
        parts = urlsplit(host.url)
        scheme = parts.scheme
        if scheme not in HOST_SCHEMES or not (parts.netloc or parts.path):
            problem = "should be ssh://[USER@]HOST[:PORT], unix:///PATH or ws://HOST:PORT"
            raise SettingsError(_said(["hosts", name, "url"], problem, host.url, path, data))
        if scheme == "ssh" and (parts.hostname is None or parts.path not in ("", "/")):
            problem = "should be ssh://[USER@]HOST[:PORT] (no path: set `codex` and `cwd`)"
            raise SettingsError(_said(["hosts", name, "url"], problem, host.url, path, data))
        if scheme == "ws" and (parts.hostname is None or parts.port is None):
            problem = "should be ws://HOST:PORT"
            raise SettingsError(_said(["hosts", name, "url"], problem, host.url, path, data))
        if scheme == "ws" and host.token_file is None and not is_loopback(parts.hostname or ""):
            problem = (
                "is another machine over ws:// with no token_file; an app-server that takes "
                "connections without a token runs commands for anyone who reaches it (give "
                "token_file, or reach it over ssh://)"
            )
            raise SettingsError(_said(["hosts", name, "url"], problem, host.url, path, data))
        if host.token_file is not None and scheme != "ws":
            problem = "is read for ws:// hosts only"
            raise SettingsError(_said(["hosts", name, "token_file"], problem, None, path, data))


def _unusable_paths(settings: Settings, path: Path) -> list[str]:
    """Paths the settings name that cannot be what they must be: the store's file, the
    codex binary (said as warnings: the store is offered to go without, a missing binary is
    named again when codex is started)."""
    problems = []
    store = settings.store.path.expanduser() if settings.store.path is not None else None
    if store is not None and store.is_dir():
        problems.append(f"{path}: store.path {store} is a directory; it must name a file")
    binary = settings.codex.binary.expanduser() if settings.codex.binary is not None else None
    if binary is not None and not (binary.is_file() and os.access(binary, os.X_OK)):
        problems.append(f"{path}: codex.binary {binary} is not an executable file")
    return problems


def _with_cwd_checked(settings: Settings, path: Path, data: dict[str, Any]) -> Settings:
    """The settings with `codex.cwd` (if set) expanded (`~`), once it is seen to be a
    directory."""
    given = settings.codex.cwd
    if given is None:
        return settings
    cwd = given.expanduser()
    if not cwd.is_dir():
        raise SettingsError(_said(["codex", "cwd"], "is not a directory", str(given), path, data))
    codex = dataclasses.replace(settings.codex, cwd=cwd)
    return dataclasses.replace(settings, codex=codex)


def _explain(error: ErrorDetails, path: Path, data: dict[str, Any]) -> str:
    """pydantic's first error in codex-deck's words: where, which key, what is wrong."""
    location = [str(part) for part in error["loc"]]
    kind, message = error["type"], error["msg"]
    if kind == "greater_than_equal":
        problem = f"should be at least {error.get('ctx', {}).get('ge')}"
    elif kind in PROBLEMS:
        problem = PROBLEMS[kind]
    elif message.startswith("Input should be"):
        problem = "should be" + message.removeprefix("Input should be")
    else:
        problem = message[:1].lower() + message[1:]
    value = error.get("input") if kind != "missing" else None
    return _said(location, problem, value, path, data)


PROBLEMS = {
    "missing": "is required",
    "int_type": "should be a whole number",
    "int_parsing": "should be a whole number",
    "int_from_float": "should be a whole number",
    "bool_type": "should be true or false",
    "bool_parsing": "should be true or false",
    "string_type": "should be a string",
    "path_type": "should be a path (a string)",
    "list_type": "should be a list",
    "dict_type": "should be a table",
    "dataclass_type": "should be a table",
}
"""pydantic's error types in the words of the settings file."""


def _said(location: list[str], problem: str, value: Any, path: Path, data: dict[str, Any]) -> str:
    key = ".".join(location)
    where = str(path) if _present(data, location) else f"{path} or ${env_name(location)}"
    got = f" (got {value!r})" if value is not None and not isinstance(value, dict) else ""
    return f"{where}: {key}: {problem}{got}"


def _present(data: dict[str, Any], location: list[str]) -> bool:
    node: Any = data
    for part in location:
        if isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        elif isinstance(node, dict) and part in node:
            node = node[part]
        else:
            return False
    return True


def _unknown_keys(data: dict[str, Any], path: Path) -> list[str]:
    warnings = []
    for section, body in data.items():
        if section not in SECTIONS:
            warnings.append(_unknown(path, section, section, list(SECTIONS)))
            continue
        if section in ("providers", "hosts") and isinstance(body, dict):
            for name, table in body.items():
                if isinstance(table, dict):
                    warnings += _unknown_fields(path, f"{section}.{name}", table, SECTIONS[section])
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


def settings_report(settings: Settings) -> list[tuple[str, str, str]]:
    """Every effective setting as (dotted key, value, where it came from: default, the file,
    or the environment variable that set it); values of secret-looking keys are masked."""
    data = read_toml(config_path())
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
