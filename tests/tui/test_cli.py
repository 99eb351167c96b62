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


def test_version_names_the_codex_binary_and_its_version() -> None:
    result = run("--version")
    lines = result.stdout.splitlines()
    assert lines[0].startswith("codex-deck 0.")
    assert "(bundled openai-codex-cli-bin): codex-cli 0.163.0" in lines[1]


def test_config_shows_each_setting_with_where_it_comes_from(isolated_settings: Path) -> None:
    isolated_settings.write_text(
        '[codex]\nmodel = "from-file"\nsandbox = "read-only"\n'
        '[providers.local]\nbase_url = "http://127.0.0.1:9/v1"\napi_key = "sk-verysecretvalue123"\n'
        '[store]\npath = "/tmp/somewhere.sqlite3"\n'
    )
    result = run("config", env={"CODEX_DECK_CODEX__MODEL": "from-env"})
    assert result.returncode == 0, result.stderr
    lines = {line.split(" = ")[0].strip(): line for line in result.stdout.splitlines()}
    assert lines["codex.model"].endswith('"from-env"    # env $CODEX_DECK_CODEX__MODEL')
    assert lines["codex.sandbox"].endswith('"read-only"    # file')
    assert lines["codex.approval_policy"].endswith('"on-request"    # default')
    assert result.stdout.splitlines()[0] == f"# settings file: {isolated_settings}"
    assert "# store: /tmp/somewhere.sqlite3" in result.stdout
    assert "sk-verysecretvalue123" not in result.stdout
    assert "providers.local.api_key" in result.stdout
    assert "unknown key 'providers.local.api_key'" in result.stdout
    assert "store" not in result.stderr


def test_config_edit_opens_the_editor_and_checks_the_file(
    isolated_settings: Path, tmp_path: Path
) -> None:
    editor = tmp_path / "editor"
    editor.write_text('#!/bin/sh\nprintf \'[ui]\\nthem = "dark"\\n\' > "$1"\n')
    editor.chmod(0o755)
    result = run("config", "--edit", env={"EDITOR": str(editor), "VISUAL": ""})
    assert result.returncode == 0
    assert isolated_settings.read_text() == '[ui]\nthem = "dark"\n'
    assert "unknown key 'ui.them' is ignored; did you mean 'theme'?" in result.stderr
    assert result.stdout.strip() == f"codex-deck: {isolated_settings} is valid"


def test_a_cwd_that_is_not_a_directory_is_refused(tmp_path: Path) -> None:
    result = run("--demo", "--cwd", str(tmp_path / "nowhere"))
    assert result.returncode == 2
    assert result.stderr.strip() == f"codex-deck: --cwd {tmp_path / 'nowhere'}: not a directory"


def test_config_flag_names_the_settings_file(tmp_path: Path) -> None:
    chosen = tmp_path / "chosen.toml"
    chosen.write_text('[codex]\nsandbox = "wide-open"\n')
    result = run("--config", str(chosen), "--demo")
    assert result.returncode == 2
    assert result.stderr.startswith(f"codex-deck: {chosen}: codex.sandbox: ")
