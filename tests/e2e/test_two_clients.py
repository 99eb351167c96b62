"""Two clients on one thread of one app-server (`--listen unix://…`), as codex does it: what
each is sent while the other runs a turn, who is asked to approve, and what the other is told
once one answers. These are facts of codex, not of codex-deck: they say what a terminal and a
browser attached to the same codex can share."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import msgspec
import pytest

from engine.engine import Engine
from engine.events import ConversationUpdated, InteractionRequested, InteractionResolved
from engine.scripted_model import ScriptedModel
from engine.settings import Settings
from engine.transport.appserver import AppServer, open_app_server
from engine.transport.offline import offline_settings
from engine.transport.rpc import Notification, ServerRequest
from engine.transport.websocket import connect
from tests.e2e.eventlog import recording
from tests.e2e.test_attach import listening

pytestmark = pytest.mark.anyio

DEADLINE_SECONDS = 30


class Watch:
    """Wakes whoever waits when either client is sent something."""

    def __init__(self) -> None:
        self._changed = anyio.Event()

    def changed(self) -> None:
        self._changed.set()
        self._changed = anyio.Event()

    async def until(self, condition: Callable[[], object], what: str) -> None:
        with anyio.move_on_after(DEADLINE_SECONDS):
            while not condition():
                await self._changed.wait()
        assert condition(), f"timed out waiting for {what}"


@dataclass
class Client:
    """One connection, what it was sent, and the answers it is told to give."""

    server: AppServer
    watch: Watch
    said: list[tuple[str, Any]] = field(default_factory=list)
    """(method, params) of each notification and server request, in order."""
    asked: list[ServerRequest] = field(default_factory=list)
    decisions: dict[int | str, str] = field(default_factory=dict)
    decided: dict[int | str, anyio.Event] = field(default_factory=dict)

    def methods(self) -> list[str]:
        return [method for method, _ in self.said]

    def note(self, method: str, params: Any) -> None:
        """Note a notification (its params as JSON text) or a request (read already)."""
        read = msgspec.json.decode(params) if isinstance(params, msgspec.Raw) else params
        self.said.append((method, read))
        self.watch.changed()

    def answer(self, request: ServerRequest, decision: str) -> None:
        self.decisions[request.id] = decision
        self.decided.setdefault(request.id, anyio.Event()).set()

    async def request(self, method: str, params: dict[str, Any]) -> Any:
        return await self.server.rpc.request(method, params)

    async def turn(self, thread_id: str, text: str) -> None:
        params = {"threadId": thread_id, "input": [{"type": "text", "text": text}]}
        await self.request("turn/start", params)


@asynccontextmanager
async def client(url: str, watch: Watch) -> AsyncIterator[Client]:
    """A client that notes all it is sent and answers a request only when told to."""
    async with AsyncExitStack() as stack:
        transport = await connect(url)
        server = await stack.enter_async_context(open_app_server(transport))
        seen = Client(server, watch)

        async def answer(request: ServerRequest) -> Any:
            seen.asked.append(request)
            seen.note(request.method, request.params)
            await seen.decided.setdefault(request.id, anyio.Event()).wait()
            return {"decision": seen.decisions[request.id]}

        server.rpc.handle_requests(answer)
        received = server.rpc.subscribe()

        async def note() -> None:
            async for incoming in received:
                if isinstance(incoming, Notification):
                    seen.note(incoming.method, incoming.params)

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(note)
            yield seen
            tasks.cancel_scope.cancel()


@asynccontextmanager
async def two_on_one_thread(
    model: ScriptedModel, home: Path, workspace: Path, socket: Path
) -> AsyncIterator[tuple[Client, Client, str, Watch]]:
    """A listening codex, a first client that starts a thread and runs a turn on it (a thread
    with no turn yet cannot be resumed: "no rollout found"), and a second that resumes it."""
    url, watch = f"unix://{socket}", Watch()
    async with (
        listening(model, home, workspace, url),
        client(url, watch) as first,
        client(url, watch) as second,
    ):
        params = {"cwd": str(workspace), "approvalPolicy": "on-request"}
        thread_id = (await first.request("thread/start", params))["thread"]["id"]
        await first.turn(thread_id, "hello")
        await watch.until(lambda: "turn/completed" in first.methods(), "the first turn's end")
        first.said.clear()
        await second.request("thread/resume", {"threadId": thread_id})
        second.said.clear()
        yield first, second, thread_id, watch


def resolved(seen: Client, request: ServerRequest) -> bool:
    return ("serverRequest/resolved", request.id) in [
        (method, params.get("requestId")) for method, params in seen.said if params
    ]


async def test_both_clients_are_sent_the_turn_and_asked_the_same_approval(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path, tmp_path: Path
) -> None:
    """The turn one client started streams to both; its approval is asked of both (the same
    request id); the first answer decides, both are told it is resolved, and a later answer
    of the other changes nothing (its decline stands: no file written)."""
    socket = tmp_path / "codex.sock"
    async with two_on_one_thread(scripted_model, codex_home, workspace, socket) as opened:
        first, second, thread_id, watch = opened
        await first.turn(thread_id, "approval")
        await watch.until(lambda: first.asked and second.asked, "the approval asked of both")
        asked_first, asked_second = first.asked[0], second.asked[0]
        assert asked_first.method == asked_second.method
        assert asked_first.method == "item/commandExecution/requestApproval"
        assert asked_first.id == asked_second.id
        assert asked_first.params == asked_second.params

        first.answer(asked_first, "decline")
        await watch.until(lambda: resolved(first, asked_first), "the first told it is resolved")
        await watch.until(lambda: resolved(second, asked_second), "the second told it is resolved")
        second.answer(asked_second, "accept")
        await watch.until(
            lambda: all("turn/completed" in c.methods() for c in (first, second)), "its end"
        )
        assert not (workspace / "out.txt").exists(), "the first answer stands"
        for seen in (first, second):
            methods = seen.methods()
            assert methods.index("turn/started") < methods.index("item/agentMessage/delta")
            assert methods.count("item/commandExecution/requestApproval") == 1


async def test_the_client_that_did_not_start_the_turn_can_answer_it(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path, tmp_path: Path
) -> None:
    """An approval of a turn the first client started is answered by the second: the command
    runs, and the first is told the request is resolved."""
    socket = tmp_path / "codex.sock"
    async with two_on_one_thread(scripted_model, codex_home, workspace, socket) as opened:
        first, second, thread_id, watch = opened
        await first.turn(thread_id, "approval")
        await watch.until(lambda: first.asked and second.asked, "the approval asked of both")
        second.answer(second.asked[0], "accept")
        await watch.until(lambda: resolved(first, first.asked[0]), "the first told it is resolved")
        await watch.until(lambda: "turn/completed" in first.methods(), "the turn's end")
        assert (workspace / "out.txt").read_text() == "hi-from-exec\n"
        first.answer(first.asked[0], "decline")  # its handler ends; the answer comes too late


async def test_codex_decks_request_answered_by_another_client_is_closed_here(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path, tmp_path: Path
) -> None:
    """codex-deck attached to a codex, a second client (a browser, say) on the same thread:
    the second answers the approval first. codex-deck closes its request as codex says it
    needs no answer, and the command runs as the other client said."""
    socket = tmp_path / "codex.sock"
    url, watch = f"unix://{socket}", Watch()
    settings = offline_settings(Settings(), scripted_model, codex_home)
    async with (
        listening(scripted_model, codex_home, workspace, url),
        Engine.open(settings, cwd=workspace, attach=partial(connect, url)) as engine,
        recording(engine) as log,
        client(url, watch) as other,
    ):
        conversation = await engine.new_conversation()
        await engine.submit(conversation.id, "hello")
        await log.turn_completed(conversation.id)
        updated = log.of(ConversationUpdated, conversation.id)[-1]
        assert updated.info.thread_id is not None
        await other.request("thread/resume", {"threadId": updated.info.thread_id})
        await engine.submit(conversation.id, "approval")
        asked = await log.wait_for(InteractionRequested, lambda e: True)
        await watch.until(lambda: other.asked, "the approval asked of the other client too")

        other.answer(other.asked[0], "accept")
        closed = await log.wait_for(
            InteractionResolved, lambda e: e.interaction_id == asked.interaction.id
        )
        said = ("expired", "codex", "codex no longer needs an answer")
        assert (closed.outcome, closed.by, closed.detail) == said, "closed as codex said"
        assert (await log.turn_completed(conversation.id, count=2)).status == "completed"
        assert (workspace / "out.txt").read_text() == "hi-from-exec\n"
