"""A deck of machines (`[hosts]`): the local codex, an app-server listening on a unix socket
and codex started over ssh (a local sshd), all real, each with its own CODEX_HOME and
workspace; conversations on each, what they ask answered from anywhere, and one host's
failure leaving the others alone."""

from __future__ import annotations

import os
import shlex
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from unittest import mock

import anyio
import pytest
from anyio.abc import Process

from engine import protocol as wire
from engine.conversations.restore import Restorer
from engine.deck import Deck
from engine.events import (
    ConversationJoined,
    HostJoined,
    InteractionRequested,
    InteractionResolved,
    ItemCompleted,
    Notice,
    SideChatAnswered,
    TurnCompleted,
    TurnStarted,
)
from engine.frontend import deck_backend
from engine.scripted_model import ScriptedModel
from engine.settings import HostSettings, Settings, StoreSettings
from engine.transport.binary import find_codex
from engine.transport.offline import ModelServer, offline_settings
from tests.e2e.eventlog import EventLog, recording
from tests.e2e.sshd import Sshd, sshd
from tests.e2e.test_attach import listening
from tests.e2e.test_side_chats import SIDE_ANSWER, side_requests, tool_names
from tests.e2e.test_sign_in import API_KEY, signed_out_settings

pytestmark = pytest.mark.anyio

NAMES = ("local", "sock", "box")


@dataclass(frozen=True)
class Machines:
    settings: Settings
    """The local codex's, with `[hosts]` sock (unix socket) and box (ssh)."""
    workspaces: dict[str, Path]
    homes: dict[str, Path]
    socket_url: str
    sshd: Sshd


def place(root: Path, what: str) -> dict[str, Path]:
    made = {name: root / f"{name}-{what}" for name in NAMES}
    for path in made.values():
        path.mkdir(parents=True)
    return made


@asynccontextmanager
async def machines(model: ModelServer, root: Path) -> AsyncIterator[tuple[Machines, Process]]:
    """Three hosts' codex on the model, their files under `root`, and the listening one's
    process."""
    homes, workspaces = place(root, "home"), place(root, "workspace")
    socket_url = f"unix://{root / 'sock.sock'}"
    local = offline_settings(Settings(), model, homes["local"])
    local = replace(
        local,
        codex=replace(local.codex, cwd=workspaces["local"]),
        store=StoreSettings(path=root / "store" / "deck.sqlite3"),
    )
    (root / "store").mkdir()
    async with (
        listening(model, homes["sock"], workspaces["sock"], socket_url) as listener,
        sshd(root / "ssh") as server,
    ):
        codex = shlex.join(["env", f"CODEX_HOME={homes['box']}", str(find_codex(None).path)])
        hosts = {
            "sock": HostSettings(url=socket_url, cwd=str(workspaces["sock"])),
            "box": HostSettings(
                url=server.url,
                codex=codex,
                ssh_options=["-F", str(server.config)],
                cwd=str(workspaces["box"]),
            ),
        }
        settings = replace(local, hosts=hosts)
        yield Machines(settings, workspaces, homes, socket_url, server), listener


async def joined(log: EventLog, *names: str) -> None:
    for name in names:
        await log.wait_for(HostJoined, lambda e, name=name: e.host == name)  # type: ignore[misc]


async def started_on_each(deck: Deck, log: EventLog) -> dict[str, str]:
    """A conversation on each host, by host."""
    await joined(log, "sock", "box")
    here = await deck.new_conversation("here")
    made = {"local": here.id}
    for name in ("sock", "box"):
        result = await deck.execute(here.id, f"/new @{name} on {name}")
        assert result.ok, result.message
        assert result.conversation_id is not None
        made[name] = result.conversation_id
    return made


@asynccontextmanager
async def on_deck(settings: Settings) -> AsyncIterator[tuple[Deck, EventLog, dict[str, str]]]:
    """The deck on `settings`, its events recorded, and a conversation started on each of
    local, sock and box."""
    async with deck_backend(settings)() as deck, recording(deck) as log:
        assert isinstance(deck, Deck)
        yield deck, log, await started_on_each(deck, log)


async def test_three_hosts_run_at_once_and_what_one_asks_is_answered_from_another(
    scripted_model: ScriptedModel, tmp_path: Path
) -> None:
    async with machines(scripted_model, tmp_path) as (there, _):
        async with on_deck(there.settings) as (deck, log, made):
            hosts = {info.id: info.host for info in deck.conversations()}
            assert hosts == {made[name]: name for name in NAMES}
            for conversation in made.values():
                await deck.submit(conversation, "count for me")
            for conversation in made.values():
                assert (await log.turn_completed(conversation)).status == "completed"
            found = {(hit.conversation_id, hit.host) for hit in await deck.search("count for me")}
            assert found == {(made[name], name) for name in NAMES}

            # The ssh host's codex asks; it is answered with /approve typed in the local
            # conversation, and the file is written where that codex runs, only there.
            await deck.submit(made["box"], "approval")
            asked = await log.wait_for(
                InteractionRequested, lambda e: e.conversation_id == made["box"]
            )
            assert [p.id for p in deck.pending_interactions()] == [asked.interaction.id]
            answered = await deck.execute(made["local"], f"/approve {asked.interaction.id}")
            assert answered.ok, answered.message
            assert (await log.turn_completed(made["box"], count=2)).status == "completed"
            assert [n for n in NAMES if (there.workspaces[n] / "out.txt").exists()] == ["box"]

            session = await deck.execute(made["box"], "/session")
            assert "\nhost              box\n" in session.message
            nowhere = await deck.execute(made["local"], "/new @nowhere x")
            assert not nowhere.ok
            assert nowhere.message == "No host is named 'nowhere' (the hosts: local, sock, box)."

        # Each host's store brings its conversations back on that host.
        async with deck_backend(there.settings)() as again, recording(again) as log:
            await joined(log, "sock", "box")
            hosts = {info.id: info.host for info in again.conversations()}
            assert hosts == {made[name]: name for name in NAMES}
            await again.submit(made["box"], "count for me")
            assert (await log.turn_completed(made["box"])).status == "completed"
        for name in ("sock", "box"):
            assert (tmp_path / "store" / f"deck-{name}.sqlite3").is_file()


async def test_two_apps_on_one_listening_host_see_the_same_turn_and_either_answers(
    scripted_model: ScriptedModel, tmp_path: Path
) -> None:
    """The terminal app and a browser tab (`codex-deck serve` runs an app of its own) on the
    same settings: on a listening host both follow the same thread; what its turn asks is
    asked of both, the one answers, the other's card is closed by codex."""
    async with (
        machines(scripted_model, tmp_path) as (there, _),
        on_deck(there.settings) as (terminal, seen_here, made),
    ):
        await terminal.submit(made["sock"], "count for me")
        await seen_here.turn_completed(made["sock"])
        async with deck_backend(there.settings)() as browser, recording(browser) as seen_there:
            await joined(seen_there, "sock")
            assert made["sock"] in {info.id for info in browser.conversations()}
            await terminal.submit(made["sock"], "approval")
            here = await seen_here.wait_for(InteractionRequested)
            there_asked = await seen_there.wait_for(InteractionRequested)
            assert there_asked.conversation_id == made["sock"]
            answered = await browser.execute(made["sock"], f"/approve {there_asked.interaction.id}")
            assert answered.ok, answered.message
            closed = await seen_here.wait_for(
                InteractionResolved, lambda e: e.interaction_id == here.interaction.id
            )
            assert (closed.outcome, closed.by) == ("expired", "codex")
            assert (await seen_here.turn_completed(made["sock"], count=2)).status == "completed"
            assert (tmp_path / "sock-workspace" / "out.txt").read_text() == "hi-from-exec\n"
            assert terminal.pending_interactions() == []


@asynccontextmanager
async def browser_and_terminal(
    model: ModelServer, root: Path
) -> AsyncIterator[tuple[Deck, EventLog, Deck, EventLog, dict[str, str]]]:
    """Two apps on the same hosts and store: the browser's, open first (the listening host
    joined), and the terminal's, with a conversation on each host; each with its events."""
    async with (
        machines(model, root) as (there, _),
        deck_backend(there.settings)() as browser,
        recording(browser) as seen_there,
    ):
        assert isinstance(browser, Deck)
        await joined(seen_there, "sock")
        async with on_deck(there.settings) as (terminal, seen_here, made):
            yield browser, seen_there, terminal, seen_here, made


async def test_a_conversation_the_terminal_starts_after_the_browser_opened_joins_the_browser(
    scripted_model: ScriptedModel, tmp_path: Path
) -> None:
    """The browser's app was open first: the conversation the terminal then starts on the
    listening host comes into it (codex tells every client of each thread's status; the
    store they share names the conversation), under the same id, and is followed from there:
    what its turn asks is asked there too and answered there."""
    async with browser_and_terminal(scripted_model, tmp_path) as (
        browser,
        seen_there,
        terminal,
        seen_here,
        made,
    ):
        assert made["sock"] not in {info.id for info in browser.conversations()}
        await terminal.submit(made["sock"], "approval")
        came = await seen_there.wait_for(ConversationJoined)
        assert came.conversation_id == made["sock"]
        listed = {info.id: info for info in browser.conversations()}
        assert listed[made["sock"]].host == "sock"
        assert listed[made["sock"]].title == "on sock"
        # Only the listening host's: the terminal's local and ssh codex are its own.
        assert made["local"] not in listed
        assert made["box"] not in listed
        asked = await seen_there.wait_for(
            InteractionRequested, lambda e: e.conversation_id == made["sock"]
        )
        # Its turn runs there too (its start was told only to the terminal's app).
        await seen_there.wait_for(TurnStarted, lambda e: e.conversation_id == made["sock"])
        states = {info.id: info.state for info in browser.conversations()}
        assert states[made["sock"]] == "waiting"
        answered = await browser.execute(made["sock"], f"/approve {asked.interaction.id}")
        assert answered.ok, answered.message
        assert (await seen_here.turn_completed(made["sock"])).status == "completed"
        assert (tmp_path / "sock-workspace" / "out.txt").read_text() == "hi-from-exec\n"
        await seen_there.turn_completed(made["sock"])
        # Reset in the terminal: a new thread, which the browser follows as its turn starts.
        assert (await terminal.execute(made["sock"], "/reset")).ok
        await terminal.submit(made["sock"], "count for me")
        await seen_here.turn_completed(made["sock"], count=2)
        followed = await seen_there.turn_completed(made["sock"], count=2)
        assert followed.status == "completed"
        said = [notice.text for notice in seen_there.of(Notice, made["sock"])]
        assert any(text.startswith("Reset in another app") for text in said)
        assert len(seen_there.of(ConversationJoined)) == 1


@dataclass(frozen=True)
class ResetElsewhere:
    """The terminal's conversation on the listening host, followed in the browser's app (its
    first turn seen there); the browser follows a reset of it once `follow` is set."""

    terminal: Deck
    seen_here: EventLog
    seen_there: EventLog
    conversation_id: str
    follow: anyio.Event


@asynccontextmanager
async def reset_followed_late(model: ScriptedModel, root: Path) -> AsyncIterator[ResetElsewhere]:
    follow = anyio.Event()
    moved = Restorer._moved

    async def late(self: Restorer, *args: Any) -> None:
        await follow.wait()
        await moved(self, *args)

    async with browser_and_terminal(model, root) as (_, seen_there, terminal, seen_here, made):
        sock = made["sock"]
        await terminal.submit(sock, "hello there")
        await seen_there.wait_for(ConversationJoined)
        await seen_there.turn_completed(sock)
        with mock.patch.object(Restorer, "_moved", late):
            yield ResetElsewhere(terminal, seen_here, seen_there, sock, follow)


def items_of(log: EventLog, conversation_id: str, turn_id: str) -> list[wire.ThreadItem]:
    return [e.item for e in log.of(ItemCompleted, conversation_id) if e.turn_id == turn_id]


def texts_sent(items: list[wire.ThreadItem]) -> list[object]:
    sent = [item for item in items if isinstance(item, wire.UserMessageItem)]
    return [part.get("text") for item in sent for part in item.content]


async def test_a_turn_that_ended_before_the_browser_followed_a_reset_is_told_there(
    scripted_model: ScriptedModel, tmp_path: Path
) -> None:
    """/reset in the terminal, then a quick turn on the new thread that ends before the
    browser follows the thread (held back here until it has): the browser tells that turn as
    it would have live (the message, the answer, its end), once."""
    async with reset_followed_late(scripted_model, tmp_path) as reset:
        sock, there = reset.conversation_id, reset.seen_there
        assert (await reset.terminal.execute(sock, "/reset")).ok
        await reset.terminal.submit(sock, "count for me")
        quick = await reset.seen_here.turn_completed(sock, count=2)
        reset.follow.set()
        followed = await there.turn_completed(sock, count=2)
        assert (followed.turn_id, followed.status) == (quick.turn_id, "completed")
        items = items_of(there, sock, quick.turn_id)
        assert texts_sent(items) == ["count for me"]
        answers = [item for item in items if isinstance(item, wire.AgentMessageItem)]
        assert len(answers) == 1
        assert answers[0].text
        said = [notice.text for notice in there.of(Notice, sock)]
        assert any(text.startswith("Reset in another app") for text in said)
        assert len(there.of(TurnStarted, sock)) == 2
        assert len(there.of(TurnCompleted, sock)) == 2


async def test_a_turn_that_began_before_the_browser_followed_a_reset_is_followed_there(
    scripted_model: ScriptedModel, tmp_path: Path
) -> None:
    """/reset in the terminal, then a turn on the new thread that waits for an approval before
    the browser follows the thread: the browser tells its start and the message that started
    it, then follows it to its end (its answer, once)."""
    async with reset_followed_late(scripted_model, tmp_path) as reset:
        sock, there = reset.conversation_id, reset.seen_there
        assert (await reset.terminal.execute(sock, "/reset")).ok
        await reset.terminal.submit(sock, "approval")
        asked = await reset.seen_here.wait_for(
            InteractionRequested, lambda e: e.conversation_id == sock
        )
        reset.follow.set()
        began = await there.wait_for(TurnStarted, lambda e: e.conversation_id == sock, 2)
        assert began.turn_id == asked.interaction.turn_id
        answered = await reset.terminal.execute(sock, f"/approve {asked.interaction.id}")
        assert answered.ok, answered.message
        ended = await there.turn_completed(sock, count=2)
        assert (ended.turn_id, ended.status) == (began.turn_id, "completed")
        items = items_of(there, sock, began.turn_id)
        assert texts_sent(items) == ["approval"]
        answers = [item for item in items if isinstance(item, wire.AgentMessageItem)]
        assert len({answer.id for answer in answers}) == len(answers) >= 1
        assert len(there.of(TurnStarted, sock)) == 2


def side_scratches() -> set[Path]:
    """The side chats' working directories under /tmp (where the ssh host's shell makes them:
    sshd passes no TMPDIR)."""
    return set(Path("/tmp").glob("codex-deck-side-*"))


def running_in(directory: Path) -> list[list[str]]:
    """The command lines of the processes whose working directory is `directory`."""
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if Path(os.readlink(proc / "cwd")) == directory:
                found.append((proc / "cmdline").read_bytes().decode().split("\0"))
        except OSError:
            continue
    return found


async def test_a_side_chat_runs_on_its_conversations_ssh_host_and_not_on_a_listening_one(
    scripted_model: ScriptedModel, tmp_path: Path
) -> None:
    """/side in a conversation on the ssh host: its private codex is started there (over an
    ssh connection of its own, checked there first, every tool off), answers, and leaves
    nothing behind when closed. A listening host's codex is not codex-deck's to start
    another beside: /side says so."""
    async with (
        machines(scripted_model, tmp_path) as (there, _),
        on_deck(there.settings) as (
            deck,
            log,
            made,
        ),
    ):
        for name in ("box", "sock"):
            await deck.submit(made[name], "count for me")
            await log.turn_completed(made[name])
        before = side_scratches()
        asked = await deck.ask_aside(made["box"], "what did you do?")
        assert asked.ok, asked.message
        answered = await log.wait_for(SideChatAnswered, lambda e: e.conversation_id == made["box"])
        assert answered.answer == SIDE_ANSWER
        [scratch] = side_scratches() - before
        [private] = [argv for argv in running_in(scratch) if "app-server" in argv]
        assert str(find_codex(None).path) in private
        for isolated in (
            "features.shell_tool=false",
            'web_search="disabled"',
            "agents.max_depth=0",
        ):
            assert isolated in private
        [request] = side_requests(scripted_model)
        assert request.user_text == "what did you do?"
        assert "count for me" in request.user_texts()
        assert tool_names(request) in ([], ["request_user_input"])
        [side] = deck.side_chats(made["box"])
        closed = await deck.close_side_chat(made["box"])
        assert closed.ok, closed.message
        assert not scratch.exists()
        assert running_in(scratch) == []
        assert deck.side_chats(made["box"]) == []
        assert side.state == "idle"

        refused = await deck.ask_aside(made["sock"], "what did you do?")
        assert not refused.ok
        assert "listens for other apps" in refused.message
        assert len(side_requests(scripted_model)) == 1


async def test_a_side_chat_on_an_ssh_host_whose_codex_lacks_a_field_is_refused(
    scripted_model: ScriptedModel, tmp_path: Path
) -> None:
    """The check is made on the host, with its codex: a codex there whose schema lacks
    `excludeTurns` (a wrapper around the real binary that removes it) gets no side chat, and
    nothing is asked of the model."""
    wrapper = tmp_path / "old-codex"
    wrapper.write_text(
        "#!/bin/sh\n"
        f'{find_codex(None).path} "$@" || exit $?\n'
        'if [ "$2" = generate-json-schema ]; then\n'
        '  sed -i \'s/"excludeTurns"/"excludeTurnsGone"/\' "$5/v2/ThreadForkParams.json"\n'
        "fi\n"
    )
    wrapper.chmod(0o755)
    async with machines(scripted_model, tmp_path) as (there, _):
        box = there.settings.hosts["box"]
        old = replace(box, codex=box.codex.replace(str(find_codex(None).path), str(wrapper)))
        settings = replace(there.settings, hosts={**there.settings.hosts, "box": old})
        async with on_deck(settings) as (deck, log, made):
            await deck.submit(made["box"], "count for me")
            await log.turn_completed(made["box"])
            refused = await deck.ask_aside(made["box"], "what did you do?")
            assert not refused.ok
            assert "too old for side chats" in refused.message
            assert "ThreadForkParams.excludeTurns" in refused.message
            assert side_requests(scripted_model) == []


async def test_a_signed_out_local_codex_is_signed_in_through_the_deck_while_the_hosts_work(
    scripted_model: ScriptedModel, tmp_path: Path
) -> None:
    """The local codex needs an account and has none: the deck opens all the same (the other
    hosts work), says so (`needs_sign_in`), and signs it in through the local codex in use,
    which then knows it (`/account`) and runs turns with the key."""
    async with machines(scripted_model, tmp_path) as (there, _):
        signed_out = signed_out_settings(scripted_model, there.homes["local"]).codex
        local = replace(signed_out, cwd=there.workspaces["local"])
        settings = replace(there.settings, codex=local, providers={})
        async with on_deck(settings) as (deck, log, made):
            assert deck.needs_sign_in
            await deck.submit(made["sock"], "count for me")
            assert (await log.turn_completed(made["sock"])).status == "completed"
            said = await deck.execute(made["local"], "/account")
            assert said.message == "Not signed in. codex needs one for its OpenAI models: /login"

            signed = await deck.sign_in_with_api_key(API_KEY)
            assert signed.ok, signed.message
            said = await deck.execute(made["local"], "/account")
            assert "Signed in with an API key" in said.message, said.message
            await deck.submit(made["local"], "count for me")
            assert (await log.turn_completed(made["local"])).status == "completed"
            request = scripted_model.responses_requests()[-1]
            assert request.headers["authorization"] == f"Bearer {API_KEY}"
            assert API_KEY not in repr(log.events)


async def test_the_rules_of_a_conversation_on_the_ssh_host_are_that_hosts(
    scripted_model: ScriptedModel, tmp_path: Path
) -> None:
    """A rule saved in a conversation on the ssh host is in that codex's rules file; /rules
    there lists it and removes it from that file (read and written by that codex)."""
    async with (
        machines(scripted_model, tmp_path) as (there, _),
        on_deck(there.settings) as (
            deck,
            log,
            made,
        ),
    ):
        await deck.submit(made["box"], "save a rule")
        asked = await log.wait_for(InteractionRequested, lambda e: e.conversation_id == made["box"])
        saved = await deck.execute(made["box"], f"/approve {asked.interaction.id} rule")
        assert saved.ok, saved.message
        await log.turn_completed(made["box"])
        rules = there.homes["box"] / "rules" / "default.rules"
        assert "echo ruled" in rules.read_text()
        listed = (await deck.execute(made["box"], "/rules")).message
        assert f"({rules}:1)" in listed
        assert "  none" in (await deck.execute(made["local"], "/rules")).message
        removed = await deck.execute(made["box"], "/rules remove 1")
        assert removed.ok, removed.message
        assert rules.read_text() == ""
