"""Threads on the real binary: an ephemeral fork without turns, and resume in a new process."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.protocol import ThreadForkParams, ThreadReadParams, ThreadResumeParams
from engine.scripted_model import ScriptedModel
from engine.transport.process import AppServerProcess
from tests.e2e.conftest import Codex, open_codex

pytestmark = pytest.mark.anyio


async def test_an_ephemeral_fork_without_turns_answers_from_the_parent_history(
    codex: Codex,
) -> None:
    parent = await codex.start_thread()
    assert (await codex.run_turn(parent, "show markdown")).status == "completed"

    forked = await codex.server.thread_fork(
        ThreadForkParams(thread_id=parent, ephemeral=True, exclude_turns=True)
    )
    fork = forked.thread
    assert fork.id != parent
    assert fork.ephemeral is True
    assert fork.forked_from_id == parent
    assert fork.path is None
    assert fork.turns == []

    assert (await codex.run_turn(fork.id, "take a side question: what can you do?")).status == (
        "completed"
    )
    side_request = codex.model.responses_requests()[-1]
    assert side_request.user_texts() == ["show markdown", "take a side question: what can you do?"]
    # The parent is untouched: still one turn.
    read = await codex.server.thread_read(ThreadReadParams(thread_id=parent, include_turns=True))
    assert len(read.thread.turns) == 1


async def test_resume_in_a_fresh_process_with_the_same_codex_home(
    scripted_model: ScriptedModel, codex_home: Path, workspace: Path
) -> None:
    async with open_codex(scripted_model, codex_home, workspace) as first:
        thread_id = await first.start_thread()
        assert (await first.run_turn(thread_id, "show markdown")).status == "completed"
        assert isinstance(first.server.transport, AppServerProcess)
        first_pid = first.server.transport.pid

    async with open_codex(scripted_model, codex_home, workspace) as second:
        assert isinstance(second.server.transport, AppServerProcess)
        assert second.server.transport.pid != first_pid
        resumed = await second.server.thread_resume(ThreadResumeParams(thread_id=thread_id))
        assert resumed.thread.id == thread_id
        assert [turn.status for turn in resumed.thread.turns] == ["completed"]
        assert (await second.run_turn(thread_id, "what can you do?")).status == "completed"

    last = scripted_model.responses_requests()[-1]
    assert last.user_texts() == ["show markdown", "what can you do?"]
