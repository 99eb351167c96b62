"""The `codex-deck` command as a user runs it (a plain-text set-up check for now)."""

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


def test_demo_prints_a_streamed_answer_from_the_offline_model() -> None:
    result = run("--demo")
    assert result.returncode == 0, result.stderr
    assert "(bundled openai-codex-cli-bin)" in result.stdout
    assert "> show markdown" in result.stdout
    assert "## Streaming Markdown" in result.stdout
    assert "[turn completed in" in result.stdout


def test_without_an_account_it_falls_back_to_the_offline_model(tmp_path: Path) -> None:
    result = run(
        "--prompt",
        "what can you do?",
        env={"CODEX_DECK_CODEX__HOME": str(tmp_path), "OPENAI_API_KEY": ""},
    )
    assert result.returncode == 0, result.stderr
    assert "No Codex account is signed in: using the offline scripted model." in result.stdout
    assert "offline scripted model" in result.stdout.split("> what can you do?")[1]


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
