"""/diff on the real binary: git runs where codex runs (command/exec, read-only), and the
latest turn's changes come from codex's turn diff."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from engine.conversations.diffs import DiffUnavailable
from engine.engine import Engine
from tests.e2e.eventlog import EventLog

pytestmark = pytest.mark.anyio

Deck = tuple[Engine, EventLog]
GIT = ["git", "-c", "user.email=dev@example.com", "-c", "user.name=dev"]


def checkout(root: Path) -> None:
    """A git checkout with a committed file changed, one deleted, and a new one not added."""
    (root / "kept.txt").write_text("one\n")
    (root / "gone.txt").write_text("bye\n")
    for step in (["init", "-q"], ["add", "."], ["commit", "-q", "-m", "start"]):
        subprocess.run([*GIT, *step], cwd=root, check=True)
    (root / "kept.txt").write_text("one\ntwo\n")
    (root / "gone.txt").unlink()
    (root / "fresh.txt").write_text("new here\n")


async def test_the_working_tree_against_head_file_by_file(deck: Deck, workspace: Path) -> None:
    engine, _ = deck
    checkout(workspace)
    conversation = await engine.new_conversation()

    view = await engine.diff(conversation.id)

    kinds = {file.path: file.kind for file in view.files}
    assert kinds == {"kept.txt": "changed", "gone.txt": "deleted", "fresh.txt": "new"}
    by_path = {file.path: file.diff for file in view.files}
    assert "+two" in by_path["kept.txt"]
    assert "-bye" in by_path["gone.txt"]
    assert "+new here" in by_path["fresh.txt"]
    said = await engine.execute(conversation.id, "/diff")
    assert said.ok
    assert "3 files" in said.message


async def test_outside_a_checkout_diff_says_so_and_a_turn_diff_needs_a_turn(
    deck: Deck, workspace: Path
) -> None:
    engine, log = deck
    conversation = await engine.new_conversation()
    with pytest.raises(DiffUnavailable, match="is not a git checkout"):
        await engine.diff(conversation.id)
    with pytest.raises(DiffUnavailable, match="No turn has changed a file"):
        await engine.diff(conversation.id, "turn")

    await engine.submit(conversation.id, "create a file")
    await log.turn_completed(conversation.id)

    turn = await engine.diff(conversation.id, "turn")
    assert [(file.path, file.kind) for file in turn.files] == [("hello.txt", "new")]
    assert "+hello from apply_patch" in turn.files[0].diff
