"""Approvals on the real binary: accept, decline and cancel a command; review a patch's diff."""

from __future__ import annotations

import pytest

from engine.protocol import (
    CommandApprovalReply,
    CommandApprovalRequest,
    CommandExecutionItem,
    Decision,
    FileChangeApprovalReply,
    FileChangeApprovalRequest,
    FileChangeItem,
    ItemCompleted,
    ItemStarted,
    KnownServerRequest,
    WireModel,
)
from tests.e2e.conftest import Answer, Codex, TurnRecord

pytestmark = pytest.mark.anyio


def answering(decision: Decision) -> Answer:
    def answer(params: KnownServerRequest) -> WireModel:
        if isinstance(params, CommandApprovalRequest):
            return CommandApprovalReply(decision=decision)
        assert isinstance(params, FileChangeApprovalRequest)
        return FileChangeApprovalReply(decision=decision)

    return answer


def command_items(record: TurnRecord) -> list[CommandExecutionItem]:
    return [
        n.item
        for n in record.of(ItemCompleted)
        if isinstance(n, ItemCompleted) and isinstance(n.item, CommandExecutionItem)
    ]


async def run_approval_scene(codex: Codex, decision: Decision) -> TurnRecord:
    codex.answer = answering(decision)
    thread_id = await codex.start_thread()
    record = await codex.run_turn(thread_id, "show me an approval")
    assert len(codex.asked) == 1
    request = codex.asked[0]
    assert isinstance(request, CommandApprovalRequest)
    assert request.reason == "Allow writing out.txt outside the sandbox?"
    assert request.command is not None
    assert "echo hi-from-exec > out.txt" in request.command
    assert request.cwd == str(codex.workspace)
    return record


async def test_accepted_command_runs(codex: Codex) -> None:
    record = await run_approval_scene(codex, "accept")
    assert record.status == "completed"
    assert (codex.workspace / "out.txt").read_text() == "hi-from-exec\n"
    [item] = command_items(record)
    assert item.status == "completed"
    assert item.exit_code == 0
    assert item.aggregated_output is not None
    assert "hi-from-exec" in item.aggregated_output


async def test_declined_command_does_not_run_and_the_turn_goes_on(codex: Codex) -> None:
    record = await run_approval_scene(codex, "decline")
    assert record.status == "completed"
    assert not (codex.workspace / "out.txt").exists()
    assert [item.status for item in command_items(record)] == ["declined"]
    # The model was told and answered once more.
    assert len(codex.model.responses_requests()) == 2


async def test_cancelled_command_does_not_run_and_the_turn_is_interrupted(codex: Codex) -> None:
    record = await run_approval_scene(codex, "cancel")
    assert record.status == "interrupted"
    assert not (codex.workspace / "out.txt").exists()
    assert len(codex.model.responses_requests()) == 1


@pytest.mark.parametrize("decision", ["accept", "decline"])
async def test_file_change_approval_shows_the_diff_from_the_item(
    codex: Codex, decision: Decision
) -> None:
    codex.answer = answering(decision)
    thread_id = await codex.start_thread(approval_policy="untrusted")
    record = await codex.run_turn(thread_id, "create a file")
    [request] = codex.asked
    assert isinstance(request, FileChangeApprovalRequest)
    started = [
        n.item
        for n in record.of(ItemStarted)
        if isinstance(n, ItemStarted) and isinstance(n.item, FileChangeItem)
    ]
    [item] = [item for item in started if item.id == request.item_id]
    [change] = item.changes
    assert change.path == str(codex.workspace / "hello.txt")
    assert change.kind.type == "add"
    assert change.diff == "hello from apply_patch\n"
    assert record.status == "completed"
    written = codex.workspace / "hello.txt"
    if decision == "accept":
        assert written.read_text() == "hello from apply_patch\n"
    else:
        assert not written.exists()


async def test_patches_update_and_delete_a_file(codex: Codex) -> None:
    thread_id = await codex.start_thread()
    target = codex.workspace / "hello.txt"
    assert (await codex.run_turn(thread_id, "create a file")).status == "completed"
    assert target.read_text() == "hello from apply_patch\n"
    edit = await codex.run_turn(thread_id, "now edit the file")
    assert edit.status == "completed"
    assert target.read_text() == "hello again, edited\n"
    [change] = [
        change
        for n in edit.of(ItemCompleted)
        if isinstance(n, ItemCompleted) and isinstance(n.item, FileChangeItem)
        for change in n.item.changes
    ]
    assert change.kind.type == "update"
    assert "-hello from apply_patch" in change.diff
    assert "+hello again, edited" in change.diff
    assert (await codex.run_turn(thread_id, "delete the file")).status == "completed"
    assert not target.exists()
    assert codex.asked == []
