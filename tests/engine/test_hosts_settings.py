"""`[hosts.NAME]` read and checked, and the ssh command line a host's url makes."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from engine.commands.kinds import CommandError, New
from engine.commands.parse import parse
from engine.errors import SettingsError
from engine.settings import HostSettings
from engine.settings_source import load_settings
from engine.transport.ssh import SSH_OPTIONS, ssh_argv

HOSTS = """
[hosts.buildbox]
url = "ssh://me@buildbox:2222"
codex = "~/.local/bin/codex"
ssh_options = ["-F", "~/.ssh/deck_config"]
cwd = "/srv/code"

[hosts.gpu]
url = "ws://127.0.0.1:4500"
token_file = "~/.config/codex-deck/gpu.token"

[hosts.daemon]
url = "unix:///run/codex.sock"
"""


def test_hosts_are_read_as_written(isolated_settings: Path) -> None:
    isolated_settings.write_text(HOSTS)
    settings, warnings = load_settings()
    assert warnings == []
    assert list(settings.hosts) == ["buildbox", "gpu", "daemon"]
    box = settings.hosts["buildbox"]
    assert (box.url, box.codex, box.cwd) == (
        "ssh://me@buildbox:2222",
        "~/.local/bin/codex",
        "/srv/code",
    )
    assert settings.hosts["gpu"].token_file == Path("~/.config/codex-deck/gpu.token")
    assert settings.hosts["daemon"] == HostSettings(url="unix:///run/codex.sock")


@pytest.mark.parametrize(
    ("table", "said"),
    [
        ('[hosts.box]\nurl = "http://box"\n', "hosts.box.url: should be ssh://[USER@]HOST[:PORT]"),
        (
            '[hosts.box]\nurl = "ssh://box/srv"\n',
            "hosts.box.url: should be ssh://[USER@]HOST[:PORT] (no path",
        ),
        ('[hosts.box]\nurl = "ws://box"\n', "hosts.box.url: should be ws://HOST:PORT"),
        ('[hosts.box]\ncodex = "codex"\n', "hosts.box.url: is required"),
        (
            '[hosts.box]\nurl = "ws://10.0.0.5:4500"\n',
            "hosts.box.url: is another machine over ws:// with no token_file",
        ),
        ('[hosts.local]\nurl = "ssh://box"\n', "hosts.local: 'local' is the codex on this machine"),
        ('[hosts."a b"]\nurl = "ssh://box"\n', "hosts.a b: a host's name is letters, digits"),
        (
            '[hosts.box]\nurl = "ssh://box"\ntoken_file = "t"\n',
            "hosts.box.token_file: is read for ws:// hosts only",
        ),
    ],
)
def test_a_wrong_host_is_named_with_what_is_wrong(
    isolated_settings: Path, table: str, said: str
) -> None:
    isolated_settings.write_text(table)
    with pytest.raises(SettingsError) as wrong:
        load_settings()
    assert str(wrong.value).startswith(str(isolated_settings))
    assert f": {said}" in str(wrong.value)


def test_an_unknown_key_of_a_host_is_said(isolated_settings: Path) -> None:
    isolated_settings.write_text('[hosts.box]\nurl = "ssh://box"\ntoken = "x"\n')
    _, warnings = load_settings()
    assert warnings == [
        f"{isolated_settings}: unknown key 'hosts.box.token' is ignored; did you mean 'token_file'?"
    ]


def test_ssh_runs_codex_there_with_the_overrides_quoted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/me")
    host = HostSettings(
        url="ssh://me@buildbox:2222",
        codex="env CODEX_HOME=/srv/codex ~/bin/codex",
        ssh_options=["-F", "~/.ssh/deck_config"],
    )
    argv = ssh_argv(host, ['model="gpt 5"', "features.plugins=false"])
    assert argv[: len(SSH_OPTIONS) + 1] == ["ssh", *SSH_OPTIONS]
    assert argv[len(SSH_OPTIONS) + 1 :] == [
        "-F",
        "/home/me/.ssh/deck_config",
        "-p",
        "2222",
        "--",
        "me@buildbox",
        "env CODEX_HOME=/srv/codex ~/bin/codex app-server -c 'model=\"gpt 5\"' "
        "-c features.plugins=false",
    ]
    # What the remote shell runs gives codex each override as one word.
    assert shlex.split(argv[-1])[-3:] == ['model="gpt 5"', "-c", "features.plugins=false"]
    assert ssh_argv(HostSettings(url="ssh://box"), [])[-2:] == ["box", "codex app-server"]


def test_new_takes_a_host() -> None:
    assert parse("/new @buildbox fix the build") == New("fix the build", "buildbox")
    assert parse("/new @buildbox") == New(None, "buildbox")
    assert parse("/new a title") == New("a title")
    with pytest.raises(CommandError, match="needs a host's name after @"):
        parse("/new @ x")
