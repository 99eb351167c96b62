"""engine.settings and engine.transport.launch: the file, the environment, errors, and what
codex gets."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.errors import SettingsError
from engine.settings import (
    CodexSettings,
    ProviderSettings,
    Settings,
    UiSettings,
    as_written,
    file_tables,
    first_frame_ui,
)
from engine.settings_source import load_settings
from engine.transport.launch import codex_overrides, launch_for, thread_defaults

EXAMPLE = """
[codex]
binary = "/opt/codex/bin/codex"
home = "~/.codex-work"
model = "gpt-5.5"
reasoning_effort = "medium"
approval_policy = "untrusted"
sandbox = "read-only"
provider = "local"
config = ["features.plugins=false"]

[providers.local]
base_url = "http://127.0.0.1:8080/v1"
wire_api = "responses"
env_key = "LOCAL_API_KEY"

[ui]
theme = "codex-deck-light"
"""


def test_defaults_without_a_file() -> None:
    settings, warnings = load_settings()
    assert warnings == []
    assert settings.codex.approval_policy == "on-request"
    assert settings.codex.sandbox == "workspace-write"
    assert settings.codex.home is None
    assert settings.providers == {}


def test_the_documented_file_shape_is_read(isolated_settings: Path) -> None:
    isolated_settings.write_text(EXAMPLE)
    settings, warnings = load_settings()
    binary = "codex.binary /opt/codex/bin/codex is not an executable file"
    assert warnings == [f"{isolated_settings}: {binary}"], "the example names a binary not here"
    assert settings.codex.binary == Path("/opt/codex/bin/codex")
    assert settings.codex.model == "gpt-5.5"
    assert settings.codex.approval_policy == "untrusted"
    assert settings.providers["local"].env_key == "LOCAL_API_KEY"
    assert settings.ui.theme == "codex-deck-light"


def test_environment_overrides_the_file(
    isolated_settings: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    isolated_settings.write_text(EXAMPLE)
    monkeypatch.setenv("CODEX_DECK_CODEX__MODEL", "gpt-from-env")
    monkeypatch.setenv("CODEX_DECK_UI__THEME", "codex-deck-dark")
    settings, _ = load_settings()
    assert settings.codex.model == "gpt-from-env"
    assert settings.codex.sandbox == "read-only"
    assert settings.ui.theme == "codex-deck-dark"


def test_the_environment_sets_nested_tables_lists_and_numbers(
    isolated_settings: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    isolated_settings.write_text(EXAMPLE)
    monkeypatch.setenv("CODEX_DECK_CODEX__PROVIDER", "gateway")
    monkeypatch.setenv("codex_deck_providers__gateway__base_url", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("CODEX_DECK_CODEX__CONFIG", '["features.plugins=false"]')
    monkeypatch.setenv("CODEX_DECK_UI__KEYS", '{"trace.toggle": "ctrl+g"}')
    monkeypatch.setenv("CODEX_DECK_LIMITS__QUEUED_MESSAGES", "7")
    monkeypatch.setenv("CODEX_DECK_CODEX__MODEL", "[not json")
    settings, _ = load_settings()
    assert settings.codex.provider == "gateway"
    assert settings.providers["gateway"].base_url == "http://127.0.0.1:9/v1"
    assert settings.codex.config == ["features.plugins=false"]
    assert dict(settings.ui.keys) == {"trace.toggle": "ctrl+g"}
    assert settings.limits.queued_messages == 7
    assert settings.codex.model == "[not json"
    assert settings.codex.sandbox == "read-only", "the file's other keys stay"


def test_bad_toml_names_the_file(isolated_settings: Path) -> None:
    isolated_settings.write_text("[codex\nmodel = ")
    with pytest.raises(SettingsError) as caught:
        load_settings()
    assert str(caught.value).startswith(f"{isolated_settings}: not valid TOML")


def test_bad_value_names_the_file_the_key_and_the_problem(isolated_settings: Path) -> None:
    isolated_settings.write_text('[codex]\napproval_policy = "sometimes"\n')
    with pytest.raises(SettingsError) as caught:
        load_settings()
    message = str(caught.value)
    assert message.startswith(f"{isolated_settings}: codex.approval_policy: ")
    assert "'untrusted', 'on-request' or 'never'" in message
    assert "(got 'sometimes')" in message


def test_bad_value_from_the_environment_names_the_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CODEX_DECK_CODEX__SANDBOX", "everything")
    with pytest.raises(SettingsError, match=r"CODEX_DECK_CODEX__SANDBOX: codex\.sandbox"):
        load_settings()


def test_a_provider_must_be_defined(isolated_settings: Path) -> None:
    isolated_settings.write_text('[codex]\nprovider = "nowhere"\n')
    with pytest.raises(
        SettingsError, match=r"codex\.provider: 'nowhere' names no \[providers\.nowhere\]"
    ):
        load_settings()


def test_unknown_keys_warn_with_the_nearest_valid_key(isolated_settings: Path) -> None:
    isolated_settings.write_text(
        '[codex]\nmodle = "x"\n[providers.p]\nbase_url = "http://h"\nwireapi = "x"\n[colours]\n'
    )
    settings, warnings = load_settings()
    assert settings.codex.model is None
    assert warnings == [
        f"{isolated_settings}: unknown key 'codex.modle' is ignored; did you mean 'model'?",
        f"{isolated_settings}: unknown key 'providers.p.wireapi' is ignored; "
        "did you mean 'wire_api'?",
        f"{isolated_settings}: unknown key 'colours' is ignored",
    ]


def test_unreadable_file_is_a_clear_error(isolated_settings: Path) -> None:
    isolated_settings.mkdir()
    with pytest.raises(SettingsError, match="cannot be read"):
        load_settings()


def test_codex_gets_the_provider_and_extras_as_overrides() -> None:
    settings = Settings(
        codex=CodexSettings(
            provider="local",
            reasoning_effort="high",
            approval_policy="untrusted",
            config=["features.plugins=false"],
        ),
        providers={"local": ProviderSettings(base_url='http://h/"v1"', env_key="K")},
    )
    assert codex_overrides(settings) == (
        'model_reasoning_effort="high"',
        'model_provider="local"',
        'model_providers.local.name="local"',
        'model_providers.local.base_url="http://h/\\"v1\\""',
        'model_providers.local.wire_api="responses"',
        'model_providers.local.env_key="K"',
        "features.plugins=false",
    )
    # codex refuses approval_policy = "untrusted" in its config: it goes per thread instead.
    assert not any("approval_policy" in override for override in codex_overrides(settings))
    assert thread_defaults(settings, Path("/w")).approval_policy == "untrusted"


def test_launch_keeps_codex_home_unless_set(tmp_path: Path) -> None:
    assert launch_for(Settings(), Path("/bin/codex"), tmp_path).codex_home is None
    settings = Settings(codex=CodexSettings(home=Path("~/elsewhere")))
    launch = launch_for(settings, Path("/bin/codex"), tmp_path)
    assert launch.codex_home == Path("~/elsewhere").expanduser()
    assert launch.argv()[:2] == ["/bin/codex", "app-server"]


def test_a_cwd_is_expanded_and_must_be_a_directory(
    isolated_settings: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "code").mkdir()
    isolated_settings.write_text('[codex]\ncwd = "~/code"\n')
    settings, _ = load_settings()
    assert settings.codex.cwd == tmp_path / "code"
    isolated_settings.write_text('[codex]\ncwd = "~/nowhere"\n')
    with pytest.raises(SettingsError) as caught:
        load_settings()
    assert str(caught.value) == (
        f"{isolated_settings}: codex.cwd: is not a directory (got '~/nowhere')"
    )


def test_the_first_frame_reads_the_ui_table_and_takes_defaults_for_what_is_wrong(
    isolated_settings: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    isolated_settings.write_text(
        '[ui]\ntheme = "codex-deck-light"\nnotifications = "bell"\nkeys = {"app.help" = "f2"}\n'
    )
    assert first_frame_ui(file_tables()) == UiSettings(
        "codex-deck-light", "bell", {"app.help": "f2"}
    )
    monkeypatch.setenv("CODEX_DECK_UI__KEYS", '{"trace.toggle": "ctrl+r"}')
    monkeypatch.setenv("CODEX_DECK_UI__THEME", "codex-deck-dark")
    assert first_frame_ui(file_tables()) == UiSettings(
        "codex-deck-dark", "bell", {"trace.toggle": "ctrl+r"}
    )
    monkeypatch.delenv("CODEX_DECK_UI__KEYS")
    monkeypatch.delenv("CODEX_DECK_UI__THEME")
    isolated_settings.write_text('[ui]\ntheme = 5\nnotifications = "loud"\nkeys = {"a" = 1}\n')
    assert first_frame_ui(file_tables()) == UiSettings()
    isolated_settings.write_text("[ui\n")
    assert first_frame_ui(file_tables()) == UiSettings()


def test_codex_is_started_ahead_on_the_file_as_written_and_never_on_a_guess(
    isolated_settings: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What codex is spawned with before the first paint: the file's [codex] and
    [providers] as they are; nothing when the environment changes them or they do not fit."""
    isolated_settings.write_text(EXAMPLE)
    written = as_written(file_tables())
    assert written is not None
    checked, _ = load_settings()
    assert launch_for(written, Path("/bin/codex"), Path("/w")) == launch_for(
        checked, Path("/bin/codex"), Path("/w")
    )
    monkeypatch.setenv("CODEX_DECK_CODEX__MODEL", "gpt-from-env")
    assert as_written(file_tables()) is None
    monkeypatch.delenv("CODEX_DECK_CODEX__MODEL")
    isolated_settings.write_text('[codex]\nmodle = "x"\n')
    assert as_written(file_tables()) is None
    isolated_settings.write_text("[codex\n")
    assert as_written(file_tables()) is None
