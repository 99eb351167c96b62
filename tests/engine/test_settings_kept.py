"""The settings as last checked, kept for the next start: taken only on the same file and
environment (so the start need not import pydantic-settings), private to the user, and checked
again once the app is up, which tells what changed on the machine meanwhile."""

from __future__ import annotations

import stat
import subprocess
import sys
from pathlib import Path

import pytest

from engine.errors import SettingsError
from engine.settings_kept import check_again, checked, kept, kept_at

SETTINGS = '[codex]\nmodel = "gpt-5.5"\n[limits]\nrestarts = 2\n[store]\npath = "{store}"\n'


def test_a_check_is_kept_and_taken_only_on_the_same_file_and_environment(
    isolated_settings: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    isolated_settings.write_text(SETTINGS.format(store=tmp_path / "store.sqlite3"))
    assert kept() is None, "nothing was checked yet"
    settings, said = checked()
    assert kept() == (settings, said)
    assert settings.codex.model == "gpt-5.5"
    assert settings.limits.restarts == 2
    record = kept_at(isolated_settings)
    assert stat.S_IMODE(record.stat().st_mode) == 0o600
    assert stat.S_IMODE(record.parent.stat().st_mode) == 0o700

    monkeypatch.setenv("CODEX_DECK_LIMITS__RESTARTS", "3")
    assert kept() is None, "an environment of its own"
    monkeypatch.delenv("CODEX_DECK_LIMITS__RESTARTS")
    assert kept() == (settings, said)
    isolated_settings.write_text(SETTINGS.format(store=tmp_path / "other.sqlite3"))
    assert kept() is None, "a file changed since"
    record.write_text("{not json")
    assert kept() is None


def test_a_start_on_settings_checked_before_imports_no_pydantic(isolated_settings: Path) -> None:
    isolated_settings.write_text('[codex]\nmodel = "gpt-5.5"\n')
    checked()
    script = (
        "import sys\nfrom engine.settings_kept import read_settings\n"
        "settings, _ = read_settings()\n"
        "print(settings.codex.model, 'pydantic' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["gpt-5.5", "False"]


def test_checked_again_it_tells_what_changed_on_the_machine_since(
    isolated_settings: Path, tmp_path: Path
) -> None:
    store = tmp_path / "store.sqlite3"
    isolated_settings.write_text(SETTINGS.format(store=store))
    first = checked()
    store.mkdir()  # the same file, but the machine changed: what the store names is no file
    assert kept() == first
    told = check_again(first)
    assert any(f"store.path {store} is a directory" in line for line in told), told
    isolated_settings.write_text("[limits]\nrestarts = -1\n")
    with pytest.raises(SettingsError, match=r"limits.restarts: should be at least 0 \(got -1\)"):
        check_again(first)
