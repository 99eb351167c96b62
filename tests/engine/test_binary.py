"""Finding codex, and refusing one that is too old."""

from __future__ import annotations

import builtins
import stat
from pathlib import Path
from typing import Any

import pytest

from engine.errors import CodexNotFound, CodexTooOld
from engine.transport.binary import (
    MIN_CODEX_VERSION,
    check_codex_version,
    codex_version,
    find_codex,
)


def test_the_configured_binary_comes_first(tmp_path: Path) -> None:
    binary = tmp_path / "codex"
    binary.write_text("#!/bin/sh\n")
    binary.chmod(binary.stat().st_mode | stat.S_IXUSR)
    found = find_codex(binary)
    assert (found.path, found.source) == (binary, "settings")


def test_a_configured_binary_that_is_missing_is_named(tmp_path: Path) -> None:
    with pytest.raises(CodexNotFound, match=r"binary = '.*nope'.* not an executable file"):
        find_codex(tmp_path / "nope")


def test_the_bundled_binary_is_used_when_nothing_is_configured() -> None:
    found = find_codex(None)
    assert found.source == "bundled openai-codex-cli-bin"
    assert found.path.is_file()


def test_path_is_the_last_resort(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hide_bundled_package(monkeypatch)
    binary = tmp_path / "codex"
    binary.write_text("#!/bin/sh\n")
    binary.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    found = find_codex(None)
    assert (found.path, found.source) == (binary, "PATH")


def test_nothing_found_names_all_three_places(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hide_bundled_package(monkeypatch)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(CodexNotFound) as caught:
        find_codex(None)
    message = str(caught.value)
    assert "[codex] binary in the settings (not set)" in message
    assert "openai-codex-cli-bin package (not installed)" in message
    assert "`codex` on PATH (not found)" in message


def hide_bundled_package(monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = builtins.__import__

    def no_bundled(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "codex_cli_bin":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_bundled)


def test_version_is_read_from_the_user_agent() -> None:
    agent = "codex_deck/0.163.0 (Debian 12.0.0; x86_64) xterm (codex_deck; 0.1.0)"
    assert codex_version(agent) == (0, 163, 0)
    assert codex_version("no version here") is None


def test_an_old_codex_is_refused_with_both_versions() -> None:
    with pytest.raises(CodexTooOld, match=r"codex 0\.99\.1 is too old .* needs 0\.163\.0"):
        check_codex_version("codex_deck/0.99.1 (Linux)")
    needed = ".".join(map(str, MIN_CODEX_VERSION))
    check_codex_version(f"codex_deck/{needed} (Linux)")
    check_codex_version("codex_deck/0.0.0 (a development build)")
