"""What codex tells beside a turn's items, as codex-deck says it (hooks, typed input, settings)."""

from __future__ import annotations

from typing import Any

import msgspec

from engine import protocol as wire
from engine.conversations.conversation import Conversation, Conversations
from engine.conversations.emitter import Emitter
from engine.conversations.interactions import Interactions
from engine.conversations.journal import Journal
from engine.conversations.reports import Reports
from engine.conversations.retries import Retries
from engine.conversations.router import Router
from engine.conversations.shell_runs import ShellRuns
from engine.protocol.notifications import parse_notification
from engine.records.trace import Redactor


class Told:
    def __init__(self) -> None:
        self.notices: list[tuple[str, str]] = []
        self.deltas: list[tuple[str, str, str]] = []
        self.updated = 0

    def reports(self) -> Reports:
        def notify(conversation: Conversation | None, level: str, text: str) -> None:
            self.notices.append((level, text))

        def delta(
            conversation: Conversation, turn: str, item: str, kind: str, text: str, index: int
        ) -> None:
            self.deltas.append((item, kind, text))

        def updated(conversation: Conversation) -> None:
            self.updated += 1

        return Reports(notify, delta, updated, Emitter(100), Conversations(), ShellRuns())


def hook(status: str, message: str | None = None) -> dict[str, Any]:
    run = {"id": "h1", "eventName": "preToolUse", "status": status, "durationMs": 1200}
    if message:
        run["statusMessage"] = message
    return {"threadId": "t", "turnId": "u", "run": run}


def test_a_hook_is_one_line_and_one_that_blocked_is_a_warning() -> None:
    told = Told()
    reports = told.reports()
    conversation = Conversation(id="c", title="t", cwd="/w")
    reports.in_conversation(conversation, wire.HookCompleted.read(hook("completed")))
    blocked = hook("blocked", "rm is not allowed here")
    reports.in_conversation(conversation, wire.HookCompleted.read(blocked))
    assert told.notices == [
        ("info", "hook preToolUse completed · 1,200 ms"),
        ("warning", "hook preToolUse blocked: rm is not allowed here · 1,200 ms"),
    ]


def test_what_the_agent_types_into_a_command_shows_in_its_output() -> None:
    told = Told()
    typed = {"threadId": "t", "turnId": "u", "itemId": "i", "processId": "p", "stdin": "yes"}
    told.reports().in_conversation(
        Conversation(id="c", title="t", cwd="/w"), wire.TerminalInteraction.read(typed)
    )
    assert told.deltas == [("i", "command_output", "⌨ yes\n")]


def test_a_model_codex_switched_to_is_taken_once() -> None:
    told = Told()
    reports = told.reports()
    conversation = Conversation(id="c", title="t", cwd="/w")
    settings = {
        "threadId": "t",
        "threadSettings": {"model": "gpt-5.1", "modelProvider": "openai", "effort": "high"},
    }
    for _ in range(2):
        reports.in_conversation(conversation, wire.ThreadSettingsUpdated.read(settings))
    assert (conversation.model, conversation.reasoning_effort) == ("gpt-5.1", "high")
    assert told.updated == 1


def test_an_mcp_servers_start_is_said_before_its_threads_start_is_known() -> None:
    """codex may tell how an MCP server of a thread's start went before the reply that starts
    the thread comes: the router does not know the thread yet, and must not drop it."""
    emitter = Emitter(100)
    journal = Journal(None, 100, Redactor(()))
    router = Router(
        emitter, Conversations(), Interactions(), lambda _: None, journal, lambda _: None
    )
    params = {"name": "broken", "status": "failed", "error": "No such file", "threadId": "not-yet"}
    said = parse_notification("mcpServer/startupStatus/updated", msgspec.json.encode(params))

    router.handle(said)

    assert router.reports.mcp_servers["broken"].status == "failed"


def test_a_retry_codex_repeats_is_said_once_a_turn_and_a_failed_connection_is_checked() -> None:
    """codex says "Reconnecting... waiting for network" every few seconds while the provider
    cannot be reached, without end: the conversation says it once a turn, and the provider's
    address is checked (by the engine's probe) as it is first said."""
    said: list[tuple[str, str]] = []
    checked: list[str] = []
    retries = Retries(
        lambda _, level, text: said.append((level, text)), lambda c: checked.append(c.id)
    )
    conversation = Conversation(id="c", title="t", cwd="/w")
    error = {
        "message": "Reconnecting... waiting for network",
        "codexErrorInfo": {"responseStreamDisconnected": {"httpStatusCode": None}},
        "additionalDetails": "Connection failed: error sending request",
    }

    def retry(turn: str, **changed: object) -> wire.TurnErrorNotice:
        told = {"threadId": "t", "turnId": turn, "error": {**error, **changed}, "willRetry": True}
        return wire.TurnErrorNotice.read(told)

    for _ in range(5):
        retries.error(conversation, retry("u1"))
    retries.error(conversation, retry("u1", message="Reconnecting... 2/5"))
    retries.error(conversation, retry("u2"))
    slow = {"responseStreamDisconnected": {"httpStatusCode": 502}}
    retries.error(conversation, retry("u3", codexErrorInfo=slow, additionalDetails=None))

    assert [text.split(" (")[0] for _, text in said] == [
        "Reconnecting... waiting for network",
        "Reconnecting... 2/5",
        "Reconnecting... waiting for network",
        "Reconnecting... waiting for network",
    ]
    assert {level for level, _ in said} == {"warning"}
    assert checked == ["c", "c", "c"], "an HTTP answer (502) reached the provider: no check"
