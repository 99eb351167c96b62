"""The app's CSS as Textual parsed it, kept between runs.

As the app starts, Textual parses its stylesheet and each widget class's default CSS, with
the theme's variables: some 30 ms of CPU on every start, each source parsed once a run
(`tui.private.keep_parsed_css`). What was parsed is kept in the user's cache directory,
private to them, and read back in about 5 ms.

Each rule set is kept under the CSS text itself, where it was read from and the variables it
was parsed with: CSS that changed is parsed again. The rules are Textual's own objects
(pickled), so they are kept with the Textual install that parsed them (its files, not its
version: asking for that imports `importlib.metadata`, some 10 ms), and taken only by the
same one; the file is read only if the user alone could have written it. A run writes it
again only if it parsed what it lacked, with what that run used (what is no longer used goes).
"""

from __future__ import annotations

import os
import pickle
from pathlib import Path

import platformdirs
import textual
from textual.css.model import RuleSet

from engine.private_files import read_private, replace_private
from engine.settings import APP_NAME
from tui.private import ParsedKey


def kept_at() -> Path:
    """Where the parsed CSS is kept."""
    return platformdirs.user_cache_path(APP_NAME) / "textual-css.pickle"


def textual_install() -> str:
    """The Textual the app runs on, as installed: where, and its first file's inode, size and
    time (a reinstall makes it anew)."""
    status = os.stat(textual.__file__)
    return f"{textual.__file__} {status.st_ino} {status.st_size} {status.st_mtime_ns}"


class ParsedCss:
    """What the app's stylesheets parsed in this run, or took from what was kept."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._kept = _unpickled(read_private(path))
        self._used: dict[ParsedKey, list[RuleSet]] = {}
        self._parsed = False

    def get(self, key: ParsedKey) -> list[RuleSet] | None:
        rules = self._used.get(key)
        if rules is None:
            rules = self._kept.get(key)
            if rules is not None:
                self._used[key] = rules
        return rules

    def add(self, key: ParsedKey, rules: list[RuleSet]) -> None:
        self._used[key] = rules
        self._parsed = True

    def keep(self) -> None:
        """Keep what this run used for the next, if it parsed anything."""
        if not self._parsed:
            return
        try:
            data = pickle.dumps((textual_install(), self._used), pickle.HIGHEST_PROTOCOL)
        except (pickle.PicklingError, TypeError, AttributeError):
            return  # rules Textual made of something that cannot be kept: parsed next time
        replace_private(self.path, data)


def _unpickled(data: bytes | None) -> dict[ParsedKey, list[RuleSet]]:
    if data is None:
        return {}
    try:
        install, parsed = pickle.loads(data)
    except Exception:  # cut short, or of a Textual that made its objects otherwise
        return {}
    return parsed if install == textual_install() and isinstance(parsed, dict) else {}
