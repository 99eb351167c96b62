"""The benchmark suite says what a checkout lacks before it starts, instead of failing in the
middle of its first benchmark."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from typing import Any

import pytest

from bench import __main__ as suite


def test_without_the_bench_extra_the_suite_says_how_to_install_it_and_runs_nothing(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    found = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *rest: None if name == "openai_codex" else found(name, *rest),
    )
    monkeypatch.setattr(sys, "argv", ["bench"])

    def run(*args: Any, **kwargs: Any) -> None:
        raise AssertionError(f"a benchmark was started: {args}")

    monkeypatch.setattr(subprocess, "run", run)
    assert suite.main() == 2
    assert "pip install -e '.[test,bench]'" in capsys.readouterr().err
