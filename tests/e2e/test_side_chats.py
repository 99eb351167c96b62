"""Side chats on the real binary: a throwaway fork in a private codex with every tool off,
answers streamed, follow-ups, one question at a time, closing, refusing an old codex, and
keeping a side chat as a conversation. The parent conversation never sees any of it."""

from __future__ import annotations

import os
import stat
from dataclasses import replace
from pathlib import Path

import anyio
import msgspec
import pytest

from engine.engine import Engine
from engine.errors import CodexDeckError
from engine.events import (
    InteractionRequested,
    SideChatAnswered,
    SideChatDelta,
    SideChatUpdated,
    SubmissionAccepted,
)
from engine.scripted_model import RecordedRequest, ScriptedModel
from engine.settings import LimitsSettings, Settings
from engine.side_chats.chat import SideChatBusy, SideChatClosed
from engine.side_chats.isolation import BASE_INSTRUCTIONS, SideChatUnsupported
from engine.transport.binary import find_codex
from tests.e2e.conftest import open_engine
from tests.e2e.eventlog import EventLog
from tests.reliability.report import Ledger

pytestmark = pytest.mark.anyio

Deck = tuple[Engine, EventLog]
SIDE_ANSWER = (
    "From the conversation so far: you asked me something and I answered it. "
    "**Nothing else happened**, and this side chat changes nothing."
)


def from_a_side_chat(request: RecordedRequest) -> bool:
    """Codex sends the thread's base instructions as the first developer message."""
    first = request.input_items[0] if request.input_items else {}
    content = first.get("content")
    texts = [str(part.get("text")) for part in content] if isinstance(content, list) else []
    return BASE_INSTRUCTIONS in texts


def side_requests(model: ScriptedModel) -> list[RecordedRequest]:
    return [r for r in model.responses_requests() if from_a_side_chat(r)]


def parent_requests(model: ScriptedModel) -> list[RecordedRequest]:
    return [r for r in model.responses_requests() if not from_a_side_chat(r)]


def tool_names(request: RecordedRequest) -> list[str]:
    return [str(tool.get("name") or tool.get("type")) for tool in request.body.get("tools", [])]


def command_line(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


async def after_a_turn(engine: Engine, log: EventLog, text: str = "count for me") -> str:
    conversation = await engine.new_conversation()
    await engine.submit(conversation.id, text)
    assert (await log.turn_completed(conversation.id)).status == "completed"
    return conversation.id


async def history(engine: Engine, conversation_id: str) -> tuple[object, bytes]:
    """The parent thread as `thread/read` gives it, and its rollout file byte for byte."""
    info = engine.session_info(conversation_id)
    assert info.thread_id is not None
    assert info.rollout_path is not None
    thread = await engine.read_thread(info.thread_id)
    assert thread.turns
    return msgspec.to_builtins(thread), await anyio.Path(info.rollout_path).read_bytes()


async def test_a_side_answer_streams_and_the_conversation_never_sees_it(
    deck: Deck, scripted_model: ScriptedModel
) -> None:
    engine, log = deck
    conversation_id = await after_a_turn(engine, log)
    before = await history(engine, conversation_id)
    side = await engine.open_side_chat(conversation_id)
    assert side.pid is not None
    argv = command_line(side.pid)
    for isolated in (
        "features.shell_tool=false",
        "features.unified_exec=false",
        'web_search="disabled"',
        "features.multi_agent=false",
        "features.memories=false",
        "features.apps=false",
        "agents.max_depth=0",
    ):
        assert isolated in argv
    assert side.opened is not None
    assert (side.opened.sandbox or {}).get("type") == "readOnly"
    assert side.opened.approval_policy == "never"
    assert side.opened.thread.ephemeral
    assert side.opened.thread.forked_from_id == engine.conversations()[0].thread_id

    answer = await side.ask("what did you do?")

    assert answer.text == SIDE_ANSWER
    assert not answer.cut
    await log.wait_for(SideChatAnswered)
    deltas = "".join(e.text for e in log.of(SideChatDelta, conversation_id))
    assert deltas == SIDE_ANSWER
    [asked] = side_requests(scripted_model)
    assert asked.user_text == "what did you do?"
    assert "count for me" in asked.user_texts()
    assert tool_names(asked) in ([], ["request_user_input"])
    assert await history(engine, conversation_id) == before

    await engine.submit(conversation_id, "count for me")
    await log.turn_completed(conversation_id, count=2)
    later = parent_requests(scripted_model)[-1]
    assert "what did you do?" not in later.user_texts()
    assert SIDE_ANSWER not in str(later.input_items)


async def test_a_side_question_while_the_turn_runs_leaves_the_turn_alone(
    deck: Deck, scripted_model: ScriptedModel
) -> None:
    engine, log = deck
    conversation_id = await after_a_turn(engine, log)
    await engine.submit(conversation_id, "take your time")
    await scripted_model.wait_until_holding()
    before = await history(engine, conversation_id)
    side = await engine.open_side_chat(conversation_id)
    answer = await side.ask("what did you do?")
    assert answer.text == SIDE_ANSWER
    assert await history(engine, conversation_id) == before
    assert engine.conversations()[0].state == "running"
    await engine.stop(conversation_id)
    assert (await log.turn_completed(conversation_id, count=2)).status == "interrupted"


async def test_a_side_chat_cannot_run_anything(
    deck: Deck, scripted_model: ScriptedModel, workspace: Path, tally: Ledger
) -> None:
    engine, log = deck
    conversation_id = await after_a_turn(engine, log)
    side = await engine.open_side_chat(conversation_id)
    answer = await side.ask("try a command")
    assert side.scratch is not None
    written = [path / "side.txt" for path in (workspace, side.scratch)]
    tally(
        "security",
        "a side chat asked to run a command: no tools, nothing written",
        unapproved=sum(path.exists() for path in written) + len(log.of(InteractionRequested)),
    )
    assert answer.text == "I tried to run a command, but this side chat has no tools."
    assert log.of(InteractionRequested) == []
    assert not (workspace / "side.txt").exists()
    assert side.scratch is not None
    assert not (side.scratch / "side.txt").exists()
    [call, after_call] = side_requests(scripted_model)
    assert "exec_command" not in tool_names(call)
    outputs = [i for i in after_call.input_items if i.get("type") == "function_call_output"]
    assert len(outputs) == 1
    assert outputs[0].get("output") == "unsupported call: exec_command"


async def test_a_follow_up_sees_the_earlier_side_answer(
    deck: Deck, scripted_model: ScriptedModel
) -> None:
    engine, log = deck
    conversation_id = await after_a_turn(engine, log)
    side = await engine.open_side_chat(conversation_id)
    await side.ask("what did you do?")
    follow_up = await side.ask("and before that?")
    assert follow_up.text == "Before that, nothing: my previous side answer was the whole story."
    second = side_requests(scripted_model)[-1]
    assert SIDE_ANSWER in str(second.input_items)
    assert side.info().questions == 2
    assert side.info().title == "what did you do?"


async def test_one_question_at_a_time(deck: Deck, scripted_model: ScriptedModel) -> None:
    engine, log = deck
    conversation_id = await after_a_turn(engine, log)
    side = await engine.open_side_chat(conversation_id)

    async def ask_and_see_it_closed() -> None:
        with pytest.raises(SideChatClosed, match="the side chat was closed"):
            await side.ask("take your time")

    pid, scratch = side.pid, side.scratch
    assert pid is not None
    assert scratch is not None
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(ask_and_see_it_closed)
        await scripted_model.wait_until_holding()
        with pytest.raises(SideChatBusy, match="already answering 'take your time'"):
            await side.send("what did you do?")
        result = await engine.execute(conversation_id, "/side what did you do?")
        assert not result.ok
        assert "already answering" in result.message
        await side.close()
    assert len(side_requests(scripted_model)) == 1
    assert gone(pid)
    assert not scratch.exists()


async def test_closing_ends_the_process_and_removes_its_files(deck: Deck) -> None:
    engine, log = deck
    conversation_id = await after_a_turn(engine, log)
    side = await engine.open_side_chat(conversation_id)
    pid, scratch = side.pid, side.scratch
    assert pid is not None
    assert scratch is not None
    assert not gone(pid)
    assert scratch.is_dir()
    result = await engine.execute(conversation_id, f"/closeside {side.id}")
    assert result.message == f"Closed side chat {side.id}."
    assert gone(pid)
    assert not scratch.exists()
    assert engine.side_chats(conversation_id) == []
    await log.wait_for(SideChatUpdated, lambda e: e.info.state == "closed")
    states = [e.info.state for e in log.of(SideChatUpdated, conversation_id)]
    assert states == ["opening", "idle", "closed"]


async def test_reset_and_exit_close_side_chats(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path
) -> None:
    async with open_engine(scripted_model, codex_home, workspace) as (engine, log):
        conversation_id = await after_a_turn(engine, log)
        reset = await engine.open_side_chat(conversation_id)
        await engine.reset(conversation_id)
        assert reset.state == "closed"
        assert reset.detail == "the conversation was reset"
        assert reset.pid is None
        await engine.submit(conversation_id, "count for me")
        await log.turn_completed(conversation_id, count=2)
        kept = await engine.open_side_chat(conversation_id)
        pid = kept.pid
        assert pid is not None
    assert gone(pid)
    assert kept.detail == "codex-deck is closing"


async def test_an_answer_over_the_limit_is_cut(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path
) -> None:
    settings = Settings(limits=LimitsSettings(side_answer_chars=300))
    async with open_engine(scripted_model, codex_home, workspace, settings) as (engine, log):
        conversation_id = await after_a_turn(engine, log)
        side = await engine.open_side_chat(conversation_id)
        answer = await side.ask("long answer")
        assert answer.cut
        assert len(answer.text) == 300
        answered = await log.wait_for(SideChatAnswered)
        assert answered.cut
        assert answered.answer == answer.text
        assert side.state == "idle"
        follow_up = await side.ask("what did you do?")
        assert follow_up.text == SIDE_ANSWER


async def test_a_failed_answer_closes_the_side_chat_and_says_what_to_do(deck: Deck) -> None:
    engine, log = deck
    conversation_id = await after_a_turn(engine, log)
    side = await engine.open_side_chat(conversation_id)
    pid = side.pid
    assert pid is not None
    with pytest.raises(SideChatClosed, match="open a new one with /side"):
        await side.ask("fail please")
    assert side.state == "failed"
    assert "codex could not answer" in side.detail
    assert gone(pid)


async def test_each_mcp_server_is_turned_off_in_the_side_chat(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path
) -> None:
    (codex_home / "config.toml").write_text(
        '[mcp_servers.tracker]\ncommand = "/bin/false"\n\n'
        '[mcp_servers.notes]\ncommand = "/bin/false"\n'
    )
    async with open_engine(scripted_model, codex_home, workspace) as (engine, log):
        conversation_id = await after_a_turn(engine, log)
        side = await engine.open_side_chat(conversation_id)
        assert side.pid is not None
        argv = command_line(side.pid)
        assert "mcp_servers.notes.enabled=false" in argv
        assert "mcp_servers.tracker.enabled=false" in argv


async def test_a_codex_without_the_fields_side_chats_need_is_refused(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path, tmp_path: Path
) -> None:
    """A codex whose schema lacks `excludeTurns`: a wrapper around the real binary that
    removes the field from the schema it generates and logs every start."""
    real = Settings()
    log_file = tmp_path / "starts.log"
    wrapper = tmp_path / "old-codex"
    wrapper.write_text(
        "#!/bin/sh\n"
        f'echo "$*" >> {log_file}\n'
        f'{find_codex(real.codex.binary).path} "$@" || exit $?\n'
        'if [ "$2" = generate-json-schema ]; then\n'
        '  sed -i \'s/"excludeTurns"/"excludeTurnsGone"/\' "$5/v2/ThreadForkParams.json"\n'
        "fi\n"
    )
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
    settings = Settings(codex=replace(real.codex, binary=wrapper))
    async with open_engine(scripted_model, codex_home, workspace, settings) as (engine, log):
        conversation_id = await after_a_turn(engine, log)
        with pytest.raises(SideChatUnsupported, match=r"too old for side chats.*excludeTurns"):
            await engine.open_side_chat(conversation_id)
        result = await engine.execute(conversation_id, "/side what did you do?")
        assert not result.ok
        assert "Update Codex" in result.message
    starts = log_file.read_text().splitlines()
    assert len([line for line in starts if "generate-json-schema" in line]) == 1
    assert len([line for line in starts if "generate-json-schema" not in line]) == 1
    assert side_requests(scripted_model) == []


async def test_a_side_chat_kept_as_a_conversation_has_the_parent_history(
    deck: Deck, scripted_model: ScriptedModel
) -> None:
    engine, log = deck
    conversation_id = await after_a_turn(engine, log)
    side = await engine.open_side_chat(conversation_id)
    await side.ask("what did you do?")
    result = await engine.execute(conversation_id, "/promote")
    assert result.ok
    assert result.conversation_id is not None
    kept = next(c for c in engine.conversations() if c.id == result.conversation_id)
    assert kept.thread_id not in (None, engine.conversations()[0].thread_id)
    await engine.submit(kept.id, "and before that?")
    assert (await log.turn_completed(kept.id)).status == "completed"
    request = parent_requests(scripted_model)[-1]
    assert request.user_texts() == ["count for me", "and before that?"]
    assert SIDE_ANSWER not in str(request.input_items)


async def test_nothing_to_fork_before_the_first_turn(deck: Deck) -> None:
    engine, _ = deck
    conversation = await engine.new_conversation()
    with pytest.raises(CodexDeckError, match="send it a message first"):
        await engine.open_side_chat(conversation.id)
    assert engine.side_chats(conversation.id) == []


async def test_several_side_chats_are_listed_chosen_and_closed(deck: Deck) -> None:
    engine, log = deck
    conversation_id = await after_a_turn(engine, log)
    first = await engine.execute(conversation_id, "/side what did you do?")
    assert first.message == "Asked in side chat s1."
    await log.wait_for(SideChatAnswered)
    second = await engine.execute(conversation_id, "/newside and before that?")
    assert second.message == "Asked in side chat s2."
    await log.wait_for(SideChatAnswered, count=2)
    listed = await engine.execute(conversation_id, "/side")
    assert listed.message == (
        "  s1  what did you do?  (idle, 1 question)\n* s2  and before that?  (idle, 1 question)"
    )
    assert [s.id for s in engine.side_chats(conversation_id)] == ["s1", "s2"]
    assert (await engine.ask_aside(conversation_id, "what did you do?", "s1")).ok
    await log.wait_for(SideChatAnswered, count=3)
    assert [s.questions for s in engine.side_chats(conversation_id)] == [2, 1]
    assert (await engine.execute(conversation_id, "/closeside")).message == "Closed side chat s1."
    missing = await engine.execute(conversation_id, "/closeside s9")
    assert missing.message == "There is no open side chat 's9' here (open: s2)."
    assert [s.id for s in engine.side_chats(conversation_id)] == ["s2"]


async def test_an_answer_brought_home_goes_with_the_next_message_and_nothing_else_does(
    deck: Deck, scripted_model: ScriptedModel
) -> None:
    """/bringside puts the side chat's latest answer (not its question, not its earlier
    answers) into the conversation's next message, once; a part of an answer, as selected on
    screen (its Markdown marks gone), can be brought in instead; anything else cannot."""
    engine, log = deck
    conversation_id = await after_a_turn(engine, log)
    side = await engine.open_side_chat(conversation_id)
    await side.ask("what did you do?")
    follow_up = await side.ask("and before that?")

    brought = await engine.execute(conversation_id, "/bringside")
    assert brought.ok, brought.message
    [info] = engine.conversations()
    assert info.context == ("side answer s1: and before that?",)
    refused = engine.bring_home(conversation_id, part="words the side chat never said")
    assert not refused.ok
    assert "Nothing was brought in" in refused.message
    part = engine.bring_home(conversation_id, part="Nothing else\nhappened, and this")
    assert part.ok, part.message  # drawn from "**Nothing else happened**, and this …"
    assert engine.conversations()[0].context == (
        "side answer s1: and before that?",
        "side answer s1: what did you do?",
    )

    await engine.submit(conversation_id, "count for me")
    await log.turn_completed(conversation_id, count=2)
    [*_, accepted] = log.of(SubmissionAccepted, conversation_id)
    assert accepted.text == "count for me", "what the user wrote (the queue shows it)"
    sent = parent_requests(scripted_model)[-1].user_text
    assert sent.endswith("\n\ncount for me")
    assert follow_up.text in sent
    assert "Nothing else\nhappened, and this" in sent
    assert "what did you do?" not in sent
    assert "and before that?" not in sent
    assert SIDE_ANSWER not in sent, "only the part chosen of the first answer"
    assert engine.conversations()[0].context == ()

    await engine.submit(conversation_id, "count for me")
    await log.turn_completed(conversation_id, count=3)
    assert parent_requests(scripted_model)[-1].user_text == "count for me"

    assert (await engine.execute(conversation_id, "/bringside")).ok
    dropped = await engine.execute(conversation_id, "/bringside drop")
    assert dropped.message == "Took 1 side answer out of the next message."
    assert engine.conversations()[0].context == ()


async def test_side_chats_are_searched_with_the_rest(deck: Deck) -> None:
    engine, log = deck
    conversation_id = await after_a_turn(engine, log)
    side = await engine.open_side_chat(conversation_id)
    await side.ask("what did you do?")
    await log.wait_for(SideChatAnswered)
    [hit] = await engine.search("nothing else happened")
    assert (hit.conversation_id, hit.where, hit.side_chat_id) == (
        conversation_id,
        "side chat s1",
        "s1",
    )
    assert "Nothing else happened" in hit.excerpt
    [asked] = await engine.search("what did you do")
    assert asked.where == "side question s1"
