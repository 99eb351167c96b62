"""Nothing lost, nothing run twice: codex killed mid-stream, the whole app killed mid-turn, a
turn that finished while the app was down, queues kept across a restart, and a store the disk
stops taking. The scripted model's recorded requests prove what was (not) sent again."""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path

import anyio
import pytest
from anyio.abc import Process
from anyio.streams.buffered import BufferedByteReceiveStream

from engine.conversations.history import CUT_OFF
from engine.engine import Engine
from engine.events import (
    EngineEvent,
    EngineStatus,
    ItemCompleted,
    ItemDelta,
    Notice,
    TurnCompleted,
)
from engine.protocol import AgentMessageItem, CommandExecutionItem, UserMessageItem
from engine.records.store import Store
from engine.scripted_model import ScriptedModel
from engine.settings import Settings
from engine.transport.binary import find_codex
from engine.transport.launch import launch_for
from engine.transport.offline import offline_settings
from tests.e2e.conftest import open_codex
from tests.e2e.eventlog import EventLog, recording
from tests.reliability.report import Ledger, asked_of, lost_and_reruns

pytestmark = pytest.mark.anyio

DEADLINE_SECONDS = 30


def notices(engine: Engine, conversation_id: str) -> list[str]:
    """What the engine said on the conversation between turns (recovery speaks there)."""
    return [e.text for e in engine.trace(conversation_id, None) if isinstance(e, Notice)]


def asked(model: ScriptedModel, text: str) -> int:
    """How many model requests were made for a turn whose latest message is `text`."""
    return sum(1 for request in model.responses_requests() if request.user_text == text)


@asynccontextmanager
async def opening(
    model: ScriptedModel, home: Path, workspace: Path, store_path: Path
) -> AsyncIterator[tuple[Engine, EventLog, Store]]:
    """The engine on the store, yielded as soon as it is open (before it is `restored`)."""
    store = Store.open(store_path)
    settings = offline_settings(Settings(), model, home)
    try:
        async with (
            Engine.open(settings, cwd=workspace, store=store) as engine,
            recording(engine) as log,
        ):
            yield engine, log, store
    finally:
        store.close()


@asynccontextmanager
async def deck(
    model: ScriptedModel, home: Path, workspace: Path, store_path: Path
) -> AsyncIterator[tuple[Engine, EventLog, Store]]:
    """The engine on the store, once what it brought back is resumed and settled."""
    async with opening(model, home, workspace, store_path) as (engine, log, store):
        await engine.restored()
        yield engine, log, store


def stored_state(store_path: Path, submission_id: str) -> str | None:
    store = Store.open(store_path)
    try:
        return store.submission_state(submission_id)
    finally:
        store.close()


@asynccontextmanager
async def app_in_a_process(
    store_path: Path,
    home: Path,
    workspace: Path,
    model: ScriptedModel,
    text: str = "take your time",
) -> AsyncIterator[tuple[Process, str, str]]:
    """codex-deck's engine in its own process group; yields it (with its conversation and
    message ids) once it has sent `text` (a slow turn) and the model holds that turn."""
    app = await anyio.open_process(
        [
            sys.executable,
            "-m",
            "tests.e2e.crashing_app",
            str(store_path),
            str(home),
            str(workspace),
            model.base_url,
            text,
        ],
        start_new_session=True,
        cwd=Path(__file__).parents[2],
    )
    try:
        assert app.stdout is not None
        with anyio.fail_after(DEADLINE_SECONDS):
            line = (await BufferedByteReceiveStream(app.stdout).receive_until(b"\n", 4096)).split()
            assert line[:1] == [b"sent"], f"the app did not send: {line}"
            await model.wait_until_holding()
        yield app, line[1].decode(), line[2].decode()
    finally:
        await with_group_killed(app)


async def with_group_killed(app: Process) -> None:
    """Kill the app and the codex it started, like a crash of the whole app."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(app.pid, signal.SIGKILL)
    await app.wait()


async def test_codex_killed_mid_stream_is_restarted_and_nothing_is_sent_again(
    scripted_model: ScriptedModel,
    codex_home: Path,
    workspace: Path,
    tmp_path: Path,
    tally: Ledger,
) -> None:
    store_path = tmp_path / "store.sqlite3"
    async with deck(scripted_model, codex_home, workspace, store_path) as (engine, log, _):
        conversation = await engine.new_conversation()
        sent = await engine.submit(conversation.id, "take your time")
        await scripted_model.wait_until_holding()
        pid = engine.app_server_pid
        assert pid is not None
        os.kill(pid, signal.SIGKILL)

        await log.wait_for(EngineStatus, lambda e: e.status == "online")
        [info] = engine.conversations()
        assert info.state == "result_unknown"
        assert engine.app_server_pid not in (None, pid)
        notices = [n.text for n in log.of(Notice, conversation.id)]
        assert any("cut off when codex went away" in text for text in notices)
        assert sent.submission_id is not None
        assert stored_state(store_path, sent.submission_id) == "unknown"

        await engine.submit(conversation.id, "count for me")
        assert (await log.turn_completed(conversation.id)).status == "completed"
        lost, reruns = lost_and_reruns(asked_of(scripted_model), ["take your time", "count for me"])
        tally(
            "fault",
            "codex SIGKILLed mid-stream",
            lost=lost,
            reruns=reruns,
            crashes=int(engine.app_server_pid is None),
        )
        assert asked(scripted_model, "take your time") == 1
        assert asked(scripted_model, "count for me") == 1


async def test_the_whole_app_killed_mid_turn_comes_back_with_the_message_unknown(
    scripted_model: ScriptedModel,
    codex_home: Path,
    workspace: Path,
    tmp_path: Path,
    tally: Ledger,
) -> None:
    store_path = tmp_path / "store.sqlite3"
    async with app_in_a_process(store_path, codex_home, workspace, scripted_model) as (
        app,
        conversation_id,
        submission_id,
    ):
        assert stored_state(store_path, submission_id) == "sent"
        await with_group_killed(app)

    async with deck(scripted_model, codex_home, workspace, store_path) as (engine, log, _):
        [info] = engine.conversations()
        assert (info.id, info.title, info.state) == (conversation_id, "Crashing", "result_unknown")
        assert stored_state(store_path, submission_id) == "unknown"
        [said] = [n for n in notices(engine, info.id) if "'take your time'" in n]
        assert "codex recorded its turn as interrupted" in said
        lost, reruns = lost_and_reruns(asked_of(scripted_model), ["take your time"])
        kept = stored_state(store_path, submission_id) is not None
        tally(
            "fault",
            "the whole app SIGKILLed mid-turn, restarted",
            lost=lost + (not kept),
            reruns=reruns,
        )
        assert asked(scripted_model, "take your time") == 1

        result = await engine.execute(conversation_id, "/resend")
        assert result.ok, result.message
        await scripted_model.wait_until_holding()
        scripted_model.release()
        await log.turn_completed(conversation_id)
        assert asked(scripted_model, "take your time") == 2


async def test_a_turn_that_finished_while_the_app_was_down_is_found_completed(
    scripted_model: ScriptedModel,
    codex_home: Path,
    workspace: Path,
    tmp_path: Path,
    tally: Ledger,
) -> None:
    store_path = tmp_path / "store.sqlite3"
    async with app_in_a_process(store_path, codex_home, workspace, scripted_model) as (
        app,
        conversation_id,
        submission_id,
    ):
        os.kill(app.pid, signal.SIGSTOP)
        scripted_model.release()
        await rollout_says_done(codex_home)
        await with_group_killed(app)
    assert stored_state(store_path, submission_id) == "sent"

    async with deck(scripted_model, codex_home, workspace, store_path) as (engine, _, _):
        [info] = engine.conversations()
        assert (info.id, info.state) == (conversation_id, "idle")
        assert stored_state(store_path, submission_id) == "completed"
        assert "'take your time' completed; its answer is above." in notices(engine, info.id)
        lost, reruns = lost_and_reruns(asked_of(scripted_model), ["take your time"])
        tally(
            "fault",
            "the app killed; its turn finished meanwhile, restarted",
            lost=lost,
            reruns=reruns,
        )
        assert asked(scripted_model, "take your time") == 1


IN_MODIFY = 0x2
IN_NONBLOCK = 0o4000


async def rollout_says_done(home: Path) -> None:
    """Wait until codex has written the end of the turn to its rollout file, woken by the
    kernel (inotify) each time a file in the rollout's folder is written."""
    [rollout] = list((home / "sessions").rglob("rollout-*.jsonl"))
    libc = ctypes.CDLL(None, use_errno=True)
    watch = libc.inotify_init1(IN_NONBLOCK)
    assert watch >= 0, os.strerror(ctypes.get_errno())
    try:
        assert libc.inotify_add_watch(watch, str(rollout.parent).encode(), IN_MODIFY) >= 0
        with anyio.fail_after(DEADLINE_SECONDS):
            while b'"task_complete"' not in rollout.read_bytes():
                await anyio.wait_readable(watch)
                with contextlib.suppress(BlockingIOError):
                    os.read(watch, 65536)
    finally:
        os.close(watch)


async def test_queued_messages_are_kept_across_a_restart_and_wait_for_continue(
    scripted_model: ScriptedModel,
    codex_home: Path,
    workspace: Path,
    tmp_path: Path,
    tally: Ledger,
) -> None:
    store_path = tmp_path / "store.sqlite3"
    async with deck(scripted_model, codex_home, workspace, store_path) as (engine, log, _):
        conversation = await engine.new_conversation("Queue")
        await engine.submit(conversation.id, "take your time")
        await scripted_model.wait_until_holding()
        queued = await engine.submit(conversation.id, "count for me", "queue")
        assert queued.how == "queued"

    async with deck(scripted_model, codex_home, workspace, store_path) as (engine, log, _):
        [info] = engine.conversations()
        assert (info.title, info.queued, info.state) == ("Queue", 1, "idle")
        assert any("1 queued message(s) were kept" in n for n in notices(engine, info.id))
        assert asked(scripted_model, "count for me") == 0
        result = await engine.execute(info.id, "/continue")
        assert result.ok, result.message
        completed = await log.wait_for(TurnCompleted)
        assert completed.status == "completed"
        lost, reruns = lost_and_reruns(asked_of(scripted_model), ["take your time", "count for me"])
        tally(
            "fault",
            "restart with a message queued: kept, sent on /continue",
            lost=lost,
            reruns=reruns,
        )
        assert asked(scripted_model, "count for me") == 1
        assert engine.conversations()[0].queued == 0


async def test_a_store_the_disk_stops_taking_is_said_and_the_app_goes_on(
    scripted_model: ScriptedModel,
    codex_home: Path,
    workspace: Path,
    tmp_path: Path,
    tally: Ledger,
) -> None:
    store_path = tmp_path / "store.sqlite3"
    async with deck(scripted_model, codex_home, workspace, store_path) as (engine, log, store):
        conversation = await engine.new_conversation("Before")
        await store.flush()
        files = [str(store_path), f"{store_path}-wal"]
        await anyio.run_process(["chattr", "+i", *files])
        try:
            engine.rename(conversation.id, "During")
            refused = await engine.submit(conversation.id, "count for me")
            problem = await log.wait_for(Notice, lambda n: "Could not write to" in n.text)
        finally:
            await anyio.run_process(["chattr", "-i", *files])
        engine.rename(conversation.id, "After")
        await log.wait_for(Notice, lambda n: "saves again" in n.text)
        assert (await engine.submit(conversation.id, "count for me")).accepted
        assert (await log.turn_completed(conversation.id)).status == "completed"
        lost, reruns = lost_and_reruns(asked_of(scripted_model), ["count for me"])
        tally(
            "fault",
            "a store the disk stops taking (immutable files), a message typed, then it takes",
            lost=lost,
            reruns=reruns,
            crashes=int(engine.app_server_pid is None),
        )
        assert "keeps working" in problem.text
        assert not refused.accepted
        assert "could not record the message" in refused.message

    async with deck(scripted_model, codex_home, workspace, store_path) as (engine, _, _):
        [info] = engine.conversations()
        assert info.title == "After"
        assert info.state == "idle"


async def test_a_reopened_conversation_shows_its_last_turns_from_codex(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path, tmp_path: Path
) -> None:
    store_path = tmp_path / "store.sqlite3"
    async with deck(scripted_model, codex_home, workspace, store_path) as (engine, log, _):
        conversation = await engine.new_conversation("History")
        for count, text in enumerate(["show markdown", "count for me", "run a command"], 1):
            await engine.submit(conversation.id, text)
            await log.turn_completed(conversation.id, count=count)

    async with deck(scripted_model, codex_home, workspace, store_path) as (engine, log, _):
        [info] = engine.conversations()
        rest = await engine.history(info.id, turns=2)
        said = [
            e.item.text
            for e in rest
            if isinstance(e, ItemCompleted) and isinstance(e.item, UserMessageItem)
        ]
        assert said == ["count for me", "run a command"]
        assert engine.keeps_earlier(info.id)
        commands = [
            e.item
            for e in rest
            if isinstance(e, ItemCompleted) and isinstance(e.item, CommandExecutionItem)
        ]
        assert [c.command for c in commands] != []
        assert [e.status for e in rest if isinstance(e, TurnCompleted)] == [
            "completed",
            "completed",
        ]
        assert asked(scripted_model, "show markdown") == 1
        # Going further back reads the turn before, whole, and then there is nothing older.
        before = await engine.earlier(info.id)
        first = next(e.item for e in before if isinstance(e, ItemCompleted))
        assert isinstance(first, UserMessageItem)
        assert first.text == "show markdown"
        assert [e.status for e in before if isinstance(e, TurnCompleted)] == ["completed"]
        assert not engine.keeps_earlier(info.id)
        assert await engine.earlier(info.id) == []

        earlier = engine.full_trace(info.id)
        assert len([e for e in earlier if isinstance(e, TurnCompleted)]) == 3
        await engine.submit(info.id, "count for me")
        later = await log.turn_completed(info.id)
        assert later.seq > max(e.seq for e in earlier)
        assert engine.full_trace(info.id)[: len(earlier)] == earlier


async def test_an_answer_a_stop_cut_short_is_shown_cut_off_after_a_restart(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path, tmp_path: Path
) -> None:
    store_path = tmp_path / "store.sqlite3"
    async with deck(scripted_model, codex_home, workspace, store_path) as (engine, log, _):
        conversation = await engine.new_conversation("Stopped")
        await engine.submit(conversation.id, "take your time")
        await log.wait_for(
            ItemDelta, lambda _: "step by step" in "".join(d.text for d in log.of(ItemDelta))
        )
        assert await engine.stop(conversation.id) == "stopped"
        live = answers(await engine.history(conversation.id))

    async with deck(scripted_model, codex_home, workspace, store_path) as (engine, _, _):
        [info] = engine.conversations()
        restarted = answers(await engine.history(info.id))
    assert live == restarted
    [answer] = restarted
    assert answer.startswith("Thinking this through step by step"), answer
    assert answer.endswith(CUT_OFF)


def answers(history: list[EngineEvent]) -> list[str]:
    """The agent's answers in a conversation's history."""
    return [
        e.item.text
        for e in history
        if isinstance(e, ItemCompleted) and isinstance(e.item, AgentMessageItem)
    ]


async def test_a_codex_that_keeps_failing_to_start_is_given_up_with_what_it_said(
    scripted_model: ScriptedModel,
    codex_home: Path,
    workspace: Path,
    tmp_path: Path,
    tally: Ledger,
) -> None:
    """A wrapper that runs the real codex once and then fails every start, saying why."""
    real = find_codex(None).path
    started = tmp_path / "started"
    wrapper = tmp_path / "flaky-codex"
    wrapper.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = app-server ]; then\n'
        f"  if [ -e {started} ]; then echo 'error: the disk is on fire' >&2; exit 3; fi\n"
        f"  touch {started}\n"
        "fi\n"
        f'exec {real} "$@"\n'
    )
    wrapper.chmod(0o755)
    base = Settings()
    settings = replace(
        base, codex=replace(base.codex, binary=wrapper), limits=replace(base.limits, restarts=2)
    )
    store = Store.open(tmp_path / "store.sqlite3")
    try:
        async with (
            Engine.open(
                offline_settings(settings, scripted_model, codex_home), cwd=workspace, store=store
            ) as engine,
            recording(engine) as log,
        ):
            pid = engine.app_server_pid
            assert pid is not None
            os.kill(pid, signal.SIGKILL)
            gave_up = await log.wait_for(EngineStatus, lambda e: e.status == "failed", count=2)
            assert "gave up restarting codex after 2 failed tries in a row" in gave_up.detail
            assert "the disk is on fire" in gave_up.detail
            starting = [e.detail for e in log.of(EngineStatus) if e.status == "starting"]
            assert starting == [
                "restarting codex in 0.5 s (attempt 1)",
                "restarting codex in 1.0 s (attempt 2)",
            ]
            conversation = await engine.new_conversation()
            refused = await engine.submit(conversation.id, "count for me")
            tally(
                "fault",
                "a codex that keeps failing to start: given up, said why",
                lost=int(refused.accepted),
                reruns=len(scripted_model.responses_requests()),
            )
            assert not refused.accepted
            assert "codex is not running" in refused.message
    finally:
        store.close()


async def test_a_thread_made_by_another_app_server_is_listed_and_opened(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path, tmp_path: Path
) -> None:
    async with open_codex(scripted_model, codex_home, workspace) as other:
        thread_id = await other.start_thread()
        assert (await other.run_turn(thread_id, "count for me")).status == "completed"

    async with deck(scripted_model, codex_home, workspace, tmp_path / "s.sqlite3") as (
        engine,
        log,
        _,
    ):
        mine = await engine.new_conversation("Mine")
        listed = await engine.execute(mine.id, "/threads")
        assert thread_id[:13] in listed.message
        assert "count for me" in listed.message
        assert mine.thread_id is not None
        assert mine.thread_id[:13] not in listed.message

        opened = await engine.execute(mine.id, f"/open {thread_id[:13]}")
        assert opened.ok, opened.message
        assert opened.conversation_id is not None
        history = await engine.history(opened.conversation_id)
        said = [e.item for e in history if isinstance(e, ItemCompleted)]
        assert [i.text for i in said if isinstance(i, UserMessageItem)] == ["count for me"]

        await engine.submit(opened.conversation_id, "show markdown")
        await log.turn_completed(opened.conversation_id)
        last = scripted_model.responses_requests()[-1]
        assert last.user_texts()[-2:] == ["count for me", "show markdown"]
        again = await engine.execute(mine.id, f"/open {thread_id[:13]}")
        assert not again.ok
        assert "no thread" in again.message


async def test_threads_copied_in_behind_codex_are_opened_and_listed_after_the_index(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path, tmp_path: Path
) -> None:
    """/threads lists from codex's index (fast however many threads there are). A thread whose
    rollout file was copied in while codex ran is not in it yet: /open finds it all the same,
    and /threads reads the rollout files after and says the list again with it."""
    async with open_codex(scripted_model, codex_home, workspace) as other:
        thread_id = await other.start_thread()
        assert (await other.run_turn(thread_id, "count for me")).status == "completed"
    [rollout] = (codex_home / "sessions").rglob(f"*{thread_id}.jsonl")

    def copy_in(said: str) -> str:
        copied = str(uuid.uuid4())
        rollout.with_name(rollout.name.replace(thread_id, copied)).write_text(
            rollout.read_text().replace(thread_id, copied).replace("count for me", said)
        )
        return copied

    async with deck(scripted_model, codex_home, workspace, tmp_path / "s.sqlite3") as (
        engine,
        log,
        _,
    ):
        mine = await engine.new_conversation("Mine")
        opened_id = copy_in("opened at once")
        opened = await engine.execute(mine.id, f"/open {opened_id[:13]}")
        assert opened.ok, opened.message
        assert opened.conversation_id is not None
        history = await engine.history(opened.conversation_id)
        said = [e.item for e in history if isinstance(e, ItemCompleted)]
        assert [i.text for i in said if isinstance(i, UserMessageItem)] == ["opened at once"]

        listed_id = copy_in("listed later")
        listed = await engine.execute(mine.id, "/threads")
        assert thread_id[:13] in listed.message
        again = await log.wait_for(Notice, lambda n: "index did not list yet" in n.text)
        assert listed_id[:13] in again.text
        assert "listed later" in again.text
        assert thread_id[:13] in again.text


async def test_a_thread_made_by_codex_exec_is_listed(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path, tmp_path: Path
) -> None:
    settings = offline_settings(Settings(), scripted_model, codex_home)
    launch = launch_for(settings, find_codex(None).path, workspace)
    overrides = [arg for override in launch.overrides for arg in ("-c", override)]
    made = await anyio.run_process(
        [str(launch.binary), "exec", *overrides, "--skip-git-repo-check", "count for me"],
        cwd=workspace,
        env={**os.environ, "CODEX_HOME": str(codex_home)},
        check=False,
    )
    assert made.returncode == 0, made.stderr.decode()[-800:]
    async with deck(scripted_model, codex_home, workspace, tmp_path / "s.sqlite3") as (
        engine,
        _,
        _,
    ):
        mine = await engine.new_conversation("Mine")
        listed = await engine.execute(mine.id, "/threads")
    assert "count for me" in listed.message, listed.message


async def one_turn_kept(
    model: ScriptedModel, home: Path, workspace: Path, store_path: Path
) -> tuple[str, str | None]:
    """A conversation of one turn in the store at `store_path`: its id and its thread's."""
    async with deck(model, home, workspace, store_path) as (engine, log, _):
        conversation = await engine.new_conversation("Kept")
        await engine.submit(conversation.id, "count for me")
        await log.turn_completed(conversation.id)
        return conversation.id, engine.conversations()[0].thread_id


async def test_a_conversation_brought_back_is_shown_and_sent_to_while_codex_resumes_it(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path, tmp_path: Path
) -> None:
    store_path = tmp_path / "store.sqlite3"
    conversation_id, thread_id = await one_turn_kept(
        scripted_model, codex_home, workspace, store_path
    )
    async with opening(scripted_model, codex_home, workspace, store_path) as (engine, log, _):
        # Neither waits for `restored`: the history comes as codex resumes the thread, and
        # the message waits for the resume by itself.
        history = await engine.history(conversation_id)
        said = [
            e.item.text
            for e in history
            if isinstance(e, ItemCompleted) and isinstance(e.item, UserMessageItem)
        ]
        assert said == ["count for me"]
        outcome = await engine.submit(conversation_id, "show markdown")
        assert outcome.accepted, outcome.message
        assert (await log.turn_completed(conversation_id)).status == "completed"
        [info] = engine.conversations()
        assert info.thread_id == thread_id, "the same thread, resumed"
    assert asked(scripted_model, "count for me") == 1
    assert asked(scripted_model, "show markdown") == 1


async def test_codex_dying_while_it_resumes_a_thread_keeps_the_thread(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path, tmp_path: Path
) -> None:
    store_path = tmp_path / "store.sqlite3"
    _, thread_id = await one_turn_kept(scripted_model, codex_home, workspace, store_path)
    async with opening(scripted_model, codex_home, workspace, store_path) as (engine, log, _):
        pid = engine.app_server_pid
        assert pid is not None
        os.kill(pid, signal.SIGKILL)  # before the thread it resumes is back
        await engine.restored()
        await log.wait_for(EngineStatus, lambda e: e.status == "online")
        [info] = engine.conversations()
        assert (info.thread_id, info.generation) == (thread_id, 0), "the thread is kept"
        assert not any("could not resume" in text for text in notices(engine, info.id))
        await engine.submit(info.id, "show markdown")
        assert (await log.turn_completed(info.id)).status == "completed"


async def test_a_message_sent_while_codex_restarts_waits_and_goes(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path, tmp_path: Path
) -> None:
    """It was refused ("codex is not running"), where the README says it waits."""
    async with deck(scripted_model, codex_home, workspace, tmp_path / "s.sqlite3") as (
        engine,
        log,
        _,
    ):
        conversation = await engine.new_conversation()
        pid = engine.app_server_pid
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        await log.wait_for(EngineStatus, lambda e: e.status == "failed")
        with anyio.fail_after(30):
            sent = await engine.submit(conversation.id, "count for me")
        assert sent.accepted, sent.message
        assert engine.app_server_pid not in (None, pid)
        done = await log.wait_for(TurnCompleted, lambda e: e.conversation_id == conversation.id)
        assert done.status == "completed"
        notices = [n.text for n in log.of(Notice, conversation.id)]
        assert "codex is restarting: the message goes once it is back." in notices
        assert [r.user_text for r in scripted_model.responses_requests()] == ["count for me"]


async def test_a_message_left_unknown_is_said_once_not_at_every_start(
    scripted_model: ScriptedModel,
    codex_home: Path,
    workspace: Path,
    tmp_path: Path,
    tally: Ledger,
) -> None:
    store_path = tmp_path / "store.sqlite3"
    async with app_in_a_process(store_path, codex_home, workspace, scripted_model) as (app, _, _):
        await with_group_killed(app)
    said: list[int] = []
    for _ in range(3):
        async with deck(scripted_model, codex_home, workspace, store_path) as (engine, _, _):
            [info] = engine.conversations()
            assert info.state == "result_unknown"
            said.append(len([n for n in notices(engine, info.id) if "'take your time'" in n]))
    assert said == [1, 1, 1], "said once, and kept, not said again at each start"
    tally("fault", "restarted three times with a message left unknown: said once", lost=0)
