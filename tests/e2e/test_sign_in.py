"""Signing codex in and out from codex-deck, against the scripted model standing in for
OpenAI: the key reaches the model as codex's bearer token and is kept nowhere by codex-deck."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from engine.engine import Engine
from engine.errors import RpcError
from engine.records.store import Store
from engine.scripted_model import ScriptedModel
from engine.settings import CodexSettings, Settings
from tests.e2e.eventlog import recording

pytestmark = pytest.mark.anyio

API_KEY = "sk-proj-codexdecktestkey0123456789"


def signed_out_settings(model: ScriptedModel, home: Path) -> Settings:
    """codex's own OpenAI provider, its base URL pointed at the scripted model."""
    return Settings(
        codex=CodexSettings(
            home=home,
            model="gpt-5.5",
            config=[f'openai_base_url="{model.base_url}"', "features.plugins=false"],
        )
    )


async def test_an_api_key_signs_codex_in_and_is_kept_nowhere_here(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path, tmp_path: Path
) -> None:
    store = Store.open(tmp_path / "store.sqlite3")
    settings = signed_out_settings(scripted_model, codex_home)
    try:
        async with (
            Engine.open(settings, cwd=workspace, store=store) as engine,
            recording(engine) as log,
        ):
            before = await engine.account()
            assert before.account is None
            assert before.requires_openai_auth
            conversation = await engine.new_conversation()
            said = await engine.execute(conversation.id, "/account")
            assert said.message == "Not signed in. codex needs one for its OpenAI models: /login"

            result = await engine.sign_in_with_api_key(API_KEY)
            assert result.ok, result.message
            after = await engine.account()
            assert after.account is not None
            assert after.account.type == "apiKey"
            await engine.submit(conversation.id, "count for me")
            assert (await log.turn_completed(conversation.id)).status == "completed"
            request = scripted_model.responses_requests()[-1]
            assert request.headers["authorization"] == f"Bearer {API_KEY}"

            out = await engine.execute(conversation.id, "/logout")
            assert out.message == "Signed out of codex."
            assert (await engine.account()).account is None
            assert API_KEY not in repr(log.events)
            assert API_KEY not in repr(engine.full_trace(conversation.id))
            await store.flush()
    finally:
        store.close()
    kept = b"".join([await p.read_bytes() async for p in anyio.Path(tmp_path).glob("store*")])
    assert API_KEY.encode() not in kept


async def test_a_refused_key_is_said_in_codex_words_and_a_login_command_never_takes_a_key(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path
) -> None:
    settings = signed_out_settings(scripted_model, codex_home)
    async with Engine.open(settings, cwd=workspace) as engine:
        empty = await engine.sign_in_with_api_key("   ")
        assert (empty.ok, empty.message) == (False, "No API key was given; nothing was sent.")
        conversation = await engine.new_conversation()
        typed = await engine.execute(conversation.id, f"/login {API_KEY}")
        assert not typed.ok
        assert API_KEY not in typed.message


async def test_a_device_code_sign_in_that_codex_cannot_start_says_why_in_its_words(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path
) -> None:
    """With no network here, codex cannot ask auth.openai.com for a device code; its refusal
    is what the user reads (the screen's other states are tested with constructed events)."""
    settings = signed_out_settings(scripted_model, codex_home)
    async with Engine.open(settings, cwd=workspace) as engine:
        with pytest.raises(RpcError, match="failed to request device code"):
            await engine.sign_in_with_device_code()
        assert (await engine.account()).account is None
