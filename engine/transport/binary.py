"""Finding the codex binary and checking its version."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import msgspec

from engine.errors import CodexNotFound, CodexTooOld

MIN_CODEX_VERSION = (0, 163, 0)
"""The oldest codex whose app-server protocol codex-deck has been checked against."""

_VERSION = re.compile(r"/(\d+)\.(\d+)\.(\d+)")


class CodexBinary(msgspec.Struct, frozen=True):
    """A codex executable and where it was found (settings, bundled package, PATH)."""

    path: Path
    source: str


def find_codex(configured: Path | None) -> CodexBinary:
    """The codex binary to run: the configured one, else the bundled one, else `codex` on PATH.

    Raises:
        CodexNotFound: the configured path is not an executable file, or nothing was found;
            the message names every place looked in.
    """
    if configured is not None:
        path = configured.expanduser()
        if path.is_file() and os.access(path, os.X_OK):
            return CodexBinary(path, "settings")
        raise CodexNotFound(
            f"the codex binary set in the settings ([codex] binary = {str(path)!r}) "
            "is not an executable file"
        )
    bundled, why_not_bundled = _bundled()
    if bundled is not None:
        return CodexBinary(bundled, "bundled openai-codex-cli-bin")
    on_path = shutil.which("codex")
    if on_path is not None:
        return CodexBinary(Path(on_path), "PATH")
    raise CodexNotFound(
        "no codex binary found. Looked at: [codex] binary in the settings (not set); "
        f"the bundled openai-codex-cli-bin package ({why_not_bundled}); "
        "`codex` on PATH (not found). Install one with `pip install openai-codex-cli-bin` "
        "or set [codex] binary in the settings."
    )


def _bundled() -> tuple[Path | None, str]:
    try:
        import codex_cli_bin
    except ImportError:
        return None, "not installed"
    try:
        return Path(codex_cli_bin.bundled_codex_path()), ""
    except FileNotFoundError as error:
        return None, str(error)


def codex_version(user_agent: str) -> tuple[int, int, int] | None:
    """The codex version in an app-server user agent (`name/0.163.0 (…)`), if there is one."""
    match = _VERSION.search(user_agent)
    if match is None:
        return None
    major, minor, patch = (int(part) for part in match.groups())
    return major, minor, patch


def check_codex_version(user_agent: str) -> None:
    """Refuse a codex older than `MIN_CODEX_VERSION`.

    A user agent without a version (a development build) is accepted.

    Raises:
        CodexTooOld: with the version found and the one needed.
    """
    version = codex_version(user_agent)
    if version is not None and version != (0, 0, 0) and version < MIN_CODEX_VERSION:
        found = ".".join(map(str, version))
        needed = ".".join(map(str, MIN_CODEX_VERSION))
        raise CodexTooOld(
            f"codex {found} is too old for codex-deck (it needs {needed} or newer). "
            "Update codex, or point [codex] binary at a newer one."
        )
