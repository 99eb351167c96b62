"""Models from codex's own list: listed, chosen with a reasoning effort for the next turn (the
request the model gets proves it), refused when unknown or with an effort it does not take,
and kept by the store."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.engine import Engine
from engine.records.store import Store
from engine.scripted_model import ScriptedModel
from engine.settings import CodexSettings, ProviderSettings, Settings
from engine.transport.offline import OFFLINE_MODEL, offline_settings
from tests.e2e.eventlog import EventLog, recording

pytestmark = pytest.mark.anyio

Deck = tuple[Engine, EventLog]


async def test_models_are_listed_from_codex(deck: Deck) -> None:
    engine, _ = deck
    conversation = await engine.new_conversation()
    offered = await engine.models()
    assert offered
    assert all(not model.hidden for model in offered)
    assert len(await engine.models(include_hidden=True)) > len(offered)
    listed = await engine.execute(conversation.id, "/model")
    for model in offered:
        assert model.model in listed.message
    everything = await engine.execute(conversation.id, "/model all")
    assert "· hidden" in everything.message


async def test_a_chosen_model_and_effort_go_with_the_next_turn(
    deck: Deck, scripted_model: ScriptedModel
) -> None:
    engine, log = deck
    conversation = await engine.new_conversation()
    await engine.submit(conversation.id, "count for me")
    await log.turn_completed(conversation.id)
    assert scripted_model.responses_requests()[-1].body["model"] == OFFLINE_MODEL

    result = await engine.execute(conversation.id, "/model gpt-5.5 high")
    assert result.message == "Model: gpt-5.5 (high), from the next turn."
    assert engine.session_info(conversation.id).model == "gpt-5.5"
    await engine.submit(conversation.id, "count for me")
    await log.turn_completed(conversation.id, count=2)
    body = scripted_model.responses_requests()[-1].body
    assert body["model"] == "gpt-5.5"
    assert body["reasoning"]["effort"] == "high"


async def test_an_unknown_model_or_effort_changes_nothing(deck: Deck) -> None:
    engine, _ = deck
    conversation = await engine.new_conversation()
    unknown = await engine.execute(conversation.id, "/model gpt-5.55")
    assert not unknown.ok
    assert unknown.message.startswith("codex offers no model 'gpt-5.55'. Did you mean gpt-5.5")
    effort = await engine.execute(conversation.id, "/model gpt-5.5 ultra")
    assert not effort.ok
    assert effort.message == "gpt-5.5 takes reasoning effort low, medium, high, xhigh; not 'ultra'."
    assert engine.session_info(conversation.id).model == OFFLINE_MODEL


async def test_the_store_keeps_the_chosen_model(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path, tmp_path: Path
) -> None:
    settings = offline_settings(Settings(), scripted_model, codex_home)
    for step in ("choose", "check"):
        store = Store.open(tmp_path / "store.sqlite3")
        try:
            async with (
                Engine.open(settings, cwd=workspace, store=store) as engine,
                recording(engine),
            ):
                if step == "choose":
                    conversation = await engine.new_conversation()
                    assert (await engine.execute(conversation.id, "/model gpt-5.5 low")).ok
                else:
                    [info] = engine.conversations()
                    session = engine.session_info(info.id)
                    assert (session.model, session.reasoning_effort) == ("gpt-5.5", "low")
        finally:
            store.close()


async def test_a_conversation_moves_to_another_provider_with_its_history(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path
) -> None:
    """Two providers at the scripted model under different paths: the request's path shows
    which one codex used."""

    def at(prefix: str) -> ProviderSettings:
        return ProviderSettings(
            base_url=scripted_model.base_url.replace("/v1", f"/{prefix}/v1"),
            request_max_retries=0,
            stream_max_retries=0,
            supports_websockets=False,
        )

    settings = Settings(
        codex=CodexSettings(
            home=codex_home, provider="a", model=OFFLINE_MODEL, config=["features.plugins=false"]
        ),
        providers={"a": at("a"), "b": at("b")},
    )
    async with Engine.open(settings, cwd=workspace) as engine, recording(engine) as log:
        conversation = await engine.new_conversation()
        await engine.submit(conversation.id, "count for me")
        await log.turn_completed(conversation.id)
        assert scripted_model.responses_requests()[-1].path == "/a/v1/responses"
        listed = await engine.execute(conversation.id, "/provider")
        assert "a  [in use]" in listed.message

        unknown = await engine.execute(conversation.id, "/provider c")
        assert unknown.message == "No [providers.c] in the settings (a, b). Nothing changed."
        moved = await engine.execute(conversation.id, "/provider b")
        assert moved.ok, moved.message
        assert engine.session_info(conversation.id).provider == "b"
        assert engine.conversations()[0].generation == 1
        await engine.submit(conversation.id, "show markdown")
        await log.turn_completed(conversation.id, count=2)
        last = scripted_model.responses_requests()[-1]
        assert last.path == "/b/v1/responses"
        assert last.user_texts()[-2:] == ["count for me", "show markdown"]
