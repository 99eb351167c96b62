"""codex-deck's settings: `config.toml`, overridden by `CODEX_DECK_…` environment variables.

The file lives in platformdirs' user config dir (`codex-deck/config.toml`), or wherever
`CODEX_DECK_CONFIG` points. Nested keys come from the environment with `__`:
`CODEX_DECK_CODEX__MODEL=gpt-5.5` sets `[codex] model`.

What the settings are is plain dataclasses, cheap to import before the first paint;
`engine.settings_source` reads and checks them with pydantic-settings once it is painted.
What the first frame needs (the theme, the keys) is read loosely by `first_frame_ui`.
"""

from __future__ import annotations

import ipaddress
import json
import os
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal, get_args

import platformdirs

from engine.errors import SettingsError

APP_NAME = "codex-deck"
CONFIG_ENV = "CODEX_DECK_CONFIG"
ENV_PREFIX = "CODEX_DECK_"


class AtLeast:
    """The least value of a number setting (`Annotated[int, AtLeast(1)]`), checked when the
    settings are (`engine.settings_source`, by pydantic, as annotated-types' `Ge`): this module
    is imported before the first paint, and annotated-types takes some 7 ms to import."""

    __slots__ = ("least",)

    def __init__(self, least: int) -> None:
        self.least = least

    def __get_pydantic_core_schema__(self, source: Any, handler: Callable[[Any], Any]) -> Any:
        from annotated_types import Ge

        return handler(Annotated[source, Ge(self.least)])


@dataclass(frozen=True)
class ProviderSettings:
    """A model provider codex can use (`[providers.NAME]`)."""

    base_url: str
    wire_api: Literal["responses"] = "responses"
    """The only one codex takes now (it refused `chat` with a message of its own)."""
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


@dataclass(frozen=True)
class LimitsSettings:
    """How much codex-deck takes on at once (`[limits]`)."""

    running_conversations: Annotated[int, AtLeast(1)] = 4
    """Conversations that may run a turn at the same time."""
    queued_messages: Annotated[int, AtLeast(0)] = 5
    """Messages that may wait behind a running turn, per conversation."""
    trace_events_per_turn: Annotated[int, AtLeast(10)] = 4000
    """Events kept in a turn's trace; past it the head and tail are kept."""
    side_answer_chars: Annotated[int, AtLeast(100)] = 20_000
    """Characters a side answer may have; past it the answer is cut and a notice says so."""
    restarts: Annotated[int, AtLeast(0)] = 6
    """Failed starts in a row after which codex-deck stops restarting a codex that died."""
    image_bytes: Annotated[int, AtLeast(1)] = 20 * 1024 * 1024
    """The largest image that may be attached to a message."""
    images_per_message: Annotated[int, AtLeast(1)] = 10
    """Images that may be attached to one message."""
    command_output_bytes: Annotated[int, AtLeast(1024)] = 64 * 1024 * 1024
    """A command's output kept in its file (the screen keeps only the latest 256 KB)."""
    line_bytes: Annotated[int, AtLeast(1024 * 1024)] = 64 * 1024 * 1024
    """The longest message from codex that is read; a longer one is skipped, with a notice
    (codex-deck holds no more than this of it meanwhile)."""


@dataclass(frozen=True)
class StoreSettings:
    """Where codex-deck keeps its conversations (`[store]`)."""

    path: Path | None = None
    """The SQLite file; unset means `codex-deck/codex-deck.sqlite3` in the user data dir."""


@dataclass(frozen=True)
class HostSettings:
    """Another machine's codex (`[hosts.NAME]`), beside the local one."""

    url: str
    """`ssh://[USER@]HOST[:PORT]` (codex-deck starts `codex app-server` there over ssh),
    `unix:///PATH` or `ws://HOST:PORT` (an app-server already listening there)."""
    token_file: Path | None = None
    """ws:// only: the file holding the listener's capability token."""
    codex: str = "codex"
    """ssh:// only: the command that runs codex on that machine (`app-server` is added), as
    its shell reads it: `~/.local/bin/codex`, or `env CODEX_HOME=/srv/codex codex`."""
    ssh_options: list[str] = field(default_factory=list)
    """ssh:// only: options given to ssh before the host (`["-F", "~/.ssh/deck_config"]`);
    the user's ssh config and keys decide the rest."""
    cwd: str | None = None
    """Working directory of new conversations there (a path on that machine); unset: the
    local one's."""

    @property
    def listening(self) -> bool:
        """Its codex listens there and runs on without codex-deck (unix://, ws://); over ssh,
        codex-deck starts it and it ends with the connection."""
        return not self.url.startswith("ssh:")


HOST_SCHEMES = ("ssh", "unix", "ws")


def is_loopback(host: str) -> bool:
    """`host` is this machine's loopback (which every account on it reaches)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


LOCAL_HOST = "local"
"""The name of the codex on this machine, always there."""


Notifications = Literal["both", "bell", "osc9", "off"]


@dataclass(frozen=True)
class UiSettings:
    """How codex-deck looks and behaves (`[ui]`)."""

    theme: str = "codex-deck-dark"
    notifications: Notifications = "both"
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
    """All of codex-deck's settings (`Settings()` is the defaults).
    `engine.settings_source.load_settings()` reads them from the file and the environment,
    with clear errors."""

    codex: CodexSettings = field(default_factory=CodexSettings)
    providers: dict[str, ProviderSettings] = field(default_factory=dict)
    limits: LimitsSettings = field(default_factory=LimitsSettings)
    store: StoreSettings = field(default_factory=StoreSettings)
    ui: UiSettings = field(default_factory=UiSettings)
    hosts: dict[str, HostSettings] = field(default_factory=dict)


def env_name(location: list[str]) -> str:
    """The environment variable that sets the setting at `location` (["codex", "model"])."""
    return ENV_PREFIX + "__".join(location).upper()


def read_toml(path: Path) -> dict[str, Any]:
    """The settings file's tables ({} when there is none).

    Raises:
        SettingsError: the file is not TOML, not UTF-8 or cannot be read (named, with why).
    """
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


NOTIFICATIONS: tuple[str, ...] = get_args(Notifications)


def file_tables() -> dict[str, Any] | None:
    """The settings file's tables, read once before the first paint for `first_frame_ui`
    and `as_written`; None when it cannot be read (`engine.settings_source` says why)."""
    try:
        return read_toml(config_path())
    except SettingsError:
        return None


def first_frame_ui(tables: dict[str, Any] | None) -> UiSettings:
    """The `[ui]` table of the file's `tables` (None: it cannot be read) and the
    environment, as the first frame needs it, read before the first paint without pydantic
    (its import would slow that paint by some 100 ms): a value of the wrong shape gives the
    default here, and `engine.settings_source` says what is wrong once the frame is painted."""
    table = tables.get("ui") if tables is not None else None
    found = dict(table) if isinstance(table, dict) else {}
    for name in ("theme", "notifications", "keys"):
        raw = os.environ.get(env_name(["ui", name]))
        if raw is not None:
            found[name] = _json_table(raw) if name == "keys" else raw
    theme, notifications, keys = found.get("theme"), found.get("notifications"), found.get("keys")
    default = UiSettings()
    if not isinstance(keys, dict) or not all(isinstance(key, str) for key in keys.values()):
        keys = {}
    return UiSettings(
        theme=theme if isinstance(theme, str) else default.theme,
        notifications=notifications if notifications in NOTIFICATIONS else default.notifications,
        keys={str(name): key for name, key in keys.items()},
    )


def as_written(tables: dict[str, Any] | None) -> Settings | None:
    """The settings as the file's `tables` write them, taken at their word (not checked):
    what codex is started with ahead of the first paint. None where that cannot be had
    cheaply: a file that cannot be read, a `CODEX_DECK_CODEX__…` or `…_PROVIDERS__…`
    variable, or tables that do not fit as they are. The checked settings take that codex
    up only if they launch it the same way."""
    changed = (env_name(["codex"]) + "__", env_name(["providers"]) + "__")
    if tables is None or any(name.upper().startswith(changed) for name in os.environ):
        return None
    data = tables
    try:
        codex = CodexSettings(**_with_paths(data.get("codex", {}), ("binary", "home", "cwd")))
        providers = {
            str(name): ProviderSettings(**table)
            for name, table in data.get("providers", {}).items()
        }
    except (TypeError, AttributeError):
        return None
    return Settings(codex=codex, providers=providers)


def _with_paths(table: dict[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
    """`table` with its strings under `names` as paths."""
    return {
        key: Path(value) if key in names and isinstance(value, str) else value
        for key, value in table.items()
    }


def _json_table(raw: str) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return None


SECTIONS: dict[str, type[Any]] = {
    "codex": CodexSettings,
    "providers": ProviderSettings,
    "limits": LimitsSettings,
    "store": StoreSettings,
    "ui": UiSettings,
    "hosts": HostSettings,
}
"""The file's tables, and the settings each holds (`[providers.NAME]`: a provider;
`[hosts.NAME]`: a host)."""
