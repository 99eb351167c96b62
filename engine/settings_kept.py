"""The settings as they were last checked, kept so that a start on the same file and the same
environment need not import pydantic-settings (some 300 ms on a slow machine) before the engine
opens. What the check says can also depend on the machine (a binary removed, a directory made
where the store was): the app checks again once it is up (`check_again`) and tells what that
finds.

The check's result is kept in the user's cache directory (private to them), under a name of
its own for each settings file, with the fingerprint of what it was made of: codex-deck's
version, the file's path and bytes, and every `CODEX_DECK_…` variable.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path
from typing import Any

import msgspec
import platformdirs

from engine.private_files import replace_private
from engine.settings import APP_NAME, ENV_PREFIX, Settings, config_path
from engine.version import __version__


def fingerprint(path: Path) -> str:
    """What the settings read from `path` are made of, as one hash."""
    digest = hashlib.sha256()
    digest.update(__version__.encode())
    digest.update(str(path).encode())
    with contextlib.suppress(OSError):
        digest.update(path.read_bytes())
    for name in sorted(os.environ):
        if name.upper().startswith(ENV_PREFIX):
            digest.update(f"\0{name}={os.environ[name]}".encode())
    return digest.hexdigest()


def kept_at(path: Path) -> Path:
    """Where the check of the settings file at `path` is kept."""
    name = hashlib.sha256(str(path).encode()).hexdigest()[:16]
    return platformdirs.user_cache_path(APP_NAME) / f"settings-{name}.json"


def _encode(value: Any) -> Any:
    if isinstance(value, Path):
        return str(value)
    raise NotImplementedError(f"cannot keep {type(value).__name__}")


def _decode(kind: type, value: Any) -> Any:
    if kind is Path:
        return Path(value)
    raise NotImplementedError(f"cannot read {kind.__name__}")


def kept() -> tuple[Settings, list[str]] | None:
    """The settings and what was said of them, as checked last on the same file and
    environment; None when they were not, or what was kept cannot be read."""
    path = config_path()
    try:
        data = json.loads(kept_at(path).read_bytes())
        if not isinstance(data, dict) or data.get("fingerprint") != fingerprint(path):
            return None
        settings = msgspec.convert(data.get("settings"), Settings, dec_hook=_decode)
        said = data.get("said")
    except (OSError, ValueError, msgspec.ValidationError):
        return None
    if not isinstance(said, list) or not all(isinstance(line, str) for line in said):
        return None
    return settings, said


def keep(settings: Settings, said: list[str]) -> None:
    """Keep a check of the settings for the next start (nothing is kept where it cannot be
    written: the next start checks them again)."""
    path = config_path()
    record = {
        "fingerprint": fingerprint(path),
        "settings": msgspec.to_builtins(settings, enc_hook=_encode),
        "said": said,
    }
    replace_private(kept_at(path), json.dumps(record).encode())


def checked() -> tuple[Settings, list[str]]:
    """The settings read and checked now (`engine.settings_source`), and kept.

    Raises:
        SettingsError: a setting is wrong (nothing is kept).
    """
    from engine.settings_source import load_settings

    settings, said = load_settings()
    keep(settings, said)
    return settings, said


def read_settings() -> tuple[Settings, list[str]]:
    """The settings as last checked on the same file and environment, else checked now.

    Raises:
        SettingsError: a setting is wrong.
    """
    return kept() or checked()


def check_again(shown: tuple[Settings, list[str]]) -> list[str]:
    """Check the settings again (`shown`: what the app runs on) and keep the result; what
    this check says that was not said before, and a line saying the settings now read
    otherwise, if they do (the app runs on the ones it started with until the next start).

    Raises:
        SettingsError: a setting is wrong now.
    """
    settings, said = checked()
    before, told = shown
    new = [line for line in said if line not in told]
    if settings != before:
        new.append(
            "The settings read otherwise now than when codex-deck started (a path that "
            "changed since?); they take effect at the next start."
        )
    return new
