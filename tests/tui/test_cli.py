"""The `codex-deck` command: what it refuses before the UI starts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

COMMAND = Path(sys.executable).parent / "codex-deck"


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(COMMAND), *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **(env or {})},
    )


def test_version() -> None:
    result = run("--version")
    assert result.returncode == 0
    assert result.stdout.startswith("codex-deck 0.")


def test_a_bad_settings_file_is_one_clear_error(isolated_settings: Path) -> None:
    isolated_settings.write_text('[codex]\nsandbox = "wide-open"\n')
    result = run("--demo")
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.startswith(f"codex-deck: {isolated_settings}: codex.sandbox: ")


def test_a_missing_codex_binary_is_named(tmp_path: Path) -> None:
    result = run("--demo", env={"CODEX_DECK_CODEX__BINARY": str(tmp_path / "codex")})
    assert result.returncode == 2
    assert "is not an executable file" in result.stderr
