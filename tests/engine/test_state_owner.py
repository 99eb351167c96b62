"""A conversation's state moves only in `engine/conversations/conversation.py`, through the
moves named there (it was assigned in the engine, the restorer, the router and the commands)."""

from __future__ import annotations

import ast
from pathlib import Path

import engine

OWNER = Path(engine.__file__).parent / "conversations" / "conversation.py"
OTHERS_WITH_STATE = {"submission", "self"}
"""What else has a `state` of its own: a submission, and a side chat (as `self`)."""


def state_assignments(source: str) -> list[tuple[int, str]]:
    """Each `X.state = …` in `source` whose X is not a submission or the object itself."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            if not isinstance(target, ast.Attribute) or target.attr != "state":
                continue
            owner = target.value
            name = owner.attr if isinstance(owner, ast.Attribute) else getattr(owner, "id", "")
            if name not in OTHERS_WITH_STATE:
                found.append((node.lineno, ast.unparse(target)))
    return found


def test_only_the_conversation_moves_its_state() -> None:
    moved = {
        f"{path.relative_to(OWNER.parents[2])}:{line}": target
        for path in sorted(Path(engine.__file__).parent.rglob("*.py"))
        if path != OWNER
        for line, target in state_assignments(path.read_text())
    }
    assert moved == {}


def test_the_check_sees_an_assignment() -> None:
    assert state_assignments("conversation.state = 'idle'\nsubmission.state = 'sent'\n") == [
        (1, "conversation.state")
    ]
