"""A change hunk by hunk, and hunks taken back: each put back where the change left it, bottom
up (so the places of those above still hold), or refused, naming the line that differs."""

from __future__ import annotations

import pytest

from engine.hunks import RevertRefused, hunks_of, reverted
from engine.protocol import FileChange
from engine.protocol.items import ChangeKind

DIFF = (
    "@@ -1,3 +1,4 @@\n line 1\n-line 2\n+LINE TWO\n+a line added\n line 3\n"
    "@@ -9,3 +10,2 @@\n line 9\n-line 10\n line 11\n"
)
BEFORE = "".join(f"line {n}\n" for n in range(1, 13))
AFTER = BEFORE.replace("line 2\n", "LINE TWO\na line added\n").replace("line 10\n", "")


def update() -> FileChange:
    return FileChange(path="/w/s.txt", kind=ChangeKind(type="update"), diff=DIFF)


def test_each_hunk_or_all_of_them_is_taken_back_exactly() -> None:
    first, second = hunks_of(update())
    assert (first.old_start, first.new_start, second.new_start) == (1, 1, 10)
    assert reverted("/w/s.txt", AFTER, [first, second]) == BEFORE
    assert reverted("/w/s.txt", AFTER, [second]) == BEFORE.replace(
        "line 2\n", "LINE TWO\na line added\n"
    )
    assert reverted("/w/s.txt", AFTER, [first]) == BEFORE.replace("line 10\n", "")


def test_a_file_changed_where_a_hunk_is_refuses_every_hunk() -> None:
    hunks = hunks_of(update())
    with pytest.raises(RevertRefused, match=r"line 11 reads 'line 12', the change left 'line 11'"):
        reverted("/w/s.txt", AFTER.replace("line 11\n", ""), hunks)


def test_an_added_file_is_one_hunk_of_all_it_holds() -> None:
    added = FileChange(path="/w/n.md", kind=ChangeKind(type="add"), diff="# Notes\n\nhi\n")
    [hunk] = hunks_of(added)
    assert hunk.new_lines == ("# Notes", "", "hi")
    assert hunk.body == ("+# Notes", "+", "+hi")
