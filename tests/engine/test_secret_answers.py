"""A secret question's answer goes to codex and nowhere else: not into events, the trace, its
export or the store. (Codex sends `isSecret` only for questions the scripted model cannot ask,
so the request is constructed here and fed to the engine's router as the app-server would.)"""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from engine.conversations.conversation import Conversation, Conversations
from engine.conversations.emitter import Emitter
from engine.conversations.interactions import Interactions, Reply
from engine.conversations.journal import Journal
from engine.conversations.router import Router
from engine.events import InteractionRequested, InteractionResolved
from engine.protocol import Question, UserInputRequest
from engine.records.store import Store
from engine.records.trace import Redactor, jsonl
from engine.transport.appserver import IncomingRequest

pytestmark = pytest.mark.anyio

SECRET = "correct-horse-battery-staple"


async def test_a_secret_answer_is_sent_but_never_kept(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "store.sqlite3")
    journal = Journal(store, 100, Redactor(()))
    emitter = Emitter(trace_limit=100, sink=journal.event)
    conversations = Conversations()
    conversation = Conversation(id="c1", title="t", cwd="/w")
    conversations.add(conversation)
    conversations.bind(conversation, "thread-1")
    interactions = Interactions()
    router = Router(emitter, conversations, interactions, lambda _: None, journal, lambda _: None)
    events = emitter.subscribe()
    request = UserInputRequest(
        thread_id="thread-1",
        turn_id="turn-1",
        item_id="call-1",
        questions=[Question(id="token", header="Token", question="Your token?", is_secret=True)],
    )
    router.handle(IncomingRequest(7, request))
    [pending] = interactions.pending()
    assert pending.secret

    detail = router.requests.answer_with(pending, Reply(SECRET))
    reply = await router.requests.answer(7, request)

    assert reply.to_wire() == {"answers": {"token": {"answers": [SECRET]}}}
    assert detail == "answered (secret answer not shown)"
    emitter.close()
    seen = [event async for event in events]
    assert any(isinstance(e, InteractionRequested) for e in seen)
    resolved = [e for e in seen if isinstance(e, InteractionResolved)]
    assert [r.detail for r in resolved] == ["answered (secret answer not shown)"]
    assert SECRET not in repr(seen)
    exported = jsonl(emitter.trace("c1").all_events(), Redactor(()))
    assert SECRET not in exported
    assert len([json.loads(line) for line in exported.splitlines()]) == len(seen)
    assert await store.flush()
    store.close()
    kept = b"".join([await path.read_bytes() async for path in anyio.Path(tmp_path).iterdir()])
    assert b"answered (secret answer not shown)" in kept
    assert SECRET.encode() not in kept
