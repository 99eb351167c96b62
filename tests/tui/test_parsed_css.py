"""The app's CSS as parsed, kept between runs (`tui/parsed_css.py`): read back instead of
parsed again, private to the user, and never read from a file someone else could have made."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from textual.css.stylesheet import Stylesheet

from tests.tui.test_textual_private import ACCENTED, parses
from tui import parsed_css
from tui.parsed_css import ParsedCss
from tui.private import TEXTUAL_PARSE_RULES, keep_parsed_css

OTHER = "Static { background: $accent; }"


@pytest.fixture
def kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Where the parsed CSS is kept (Textual's own parsing restored after the test; each
    `run` below takes it up afresh)."""
    monkeypatch.setattr(Stylesheet, "_parse_rules", TEXTUAL_PARSE_RULES)
    return tmp_path / "cache" / "css.pickle"


def run(path: Path, *sources: str) -> ParsedCss:
    """A run of the app as far as its CSS goes: what was kept is read, the stylesheet
    parses `sources` (the theme set on the way), and what was parsed is kept."""
    css = ParsedCss(path)
    keep_parsed_css(css)
    sheet = Stylesheet(variables={"accent": "red"})
    for number, source in enumerate(sources):
        sheet.add_source(source, (f"source{number}", ""))
    sheet.parse()
    sheet.reparse()
    css.keep()
    return css


def test_the_next_run_reads_the_css_a_run_parsed_and_parses_none(
    kept: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parsed = parses(monkeypatch)
    run(kept, ACCENTED)
    assert parsed == [ACCENTED]
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert stat.S_IMODE(kept.parent.stat().st_mode) == 0o700
    written = kept.stat().st_mtime_ns
    run(kept, ACCENTED)
    assert parsed == [ACCENTED], "read back, not parsed"
    assert kept.stat().st_mtime_ns == written, "nothing new: not written again"


def test_css_changed_since_is_parsed_and_what_is_no_longer_used_goes(
    kept: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parsed = parses(monkeypatch)
    run(kept, ACCENTED)
    run(kept, OTHER)
    assert parsed == [ACCENTED, OTHER]
    run(kept, OTHER)
    assert parsed == [ACCENTED, OTHER]
    run(kept, ACCENTED)
    assert parsed == [ACCENTED, OTHER, ACCENTED], "the run before used only the other"


def test_a_file_another_could_have_written_or_that_is_cut_short_is_not_read(
    kept: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parsed = parses(monkeypatch)
    run(kept, ACCENTED)
    kept.chmod(0o620)
    run(kept, ACCENTED)
    assert parsed == [ACCENTED] * 2, "writable by the group"
    kept.chmod(0o600)
    uid = os.getuid()
    monkeypatch.setattr(os, "getuid", lambda: uid + 1)
    run(kept, ACCENTED)
    assert parsed == [ACCENTED] * 3, "another user's"
    monkeypatch.setattr(os, "getuid", lambda: uid)
    kept.write_bytes(kept.read_bytes()[:100])
    run(kept, ACCENTED)
    assert parsed == [ACCENTED] * 4, "cut short"
    kept.unlink()
    kept.symlink_to(kept.with_name("elsewhere"))
    run(kept, ACCENTED)
    assert parsed == [ACCENTED] * 5, "a link"


def test_css_kept_by_another_textual_is_parsed_again(
    kept: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parsed = parses(monkeypatch)
    run(kept, ACCENTED)
    monkeypatch.setattr(parsed_css, "textual_install", lambda: "a Textual installed since")
    run(kept, ACCENTED)
    assert parsed == [ACCENTED] * 2


def test_the_textual_it_was_kept_by_is_told_without_importing_package_metadata(
    tmp_path: Path,
) -> None:
    """Textual's `__version__` imports `importlib.metadata` (and `email`, `zipfile`, `csv`:
    some 10 ms), which the app's start does not otherwise."""
    script = (
        "import sys, tui.app\n"
        "from tui.parsed_css import ParsedCss, kept_at\n"
        "ParsedCss(kept_at()).keep()\n"
        "print('importlib.metadata' in sys.modules)\n"
    )
    environment = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=environment
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False"]


def test_what_cannot_be_kept_is_parsed_again_and_said_nowhere(
    kept: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parsed = parses(monkeypatch)
    kept.parent.write_text("a file where the folder would be")
    run(kept, ACCENTED)
    run(kept, ACCENTED)
    assert parsed == [ACCENTED] * 2


def test_rules_that_cannot_be_kept_are_left_to_be_parsed_next_time(kept: Path) -> None:
    css = ParsedCss(kept)
    key = (ACCENTED, ("app.tcss", ""), False, 0, "", "")
    css.add(key, [lambda: None])  # type: ignore[list-item]
    css.keep()
    assert not kept.exists()
