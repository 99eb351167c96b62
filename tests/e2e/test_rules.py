"""Rules seen before they are made, on the real binary: a request that offers a rule says which
of the conversation's earlier commands it would have run; `/rules` lists the rules codex saved
(read where codex runs) and the session's approvals, and removes one from its file, which new
threads then no longer have."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.conversations.interactions import Approve
from engine.engine import Engine
from engine.events import InteractionRequested
from tests.e2e.eventlog import EventLog

pytestmark = pytest.mark.anyio

Deck = tuple[Engine, EventLog]
RULED = "/bin/bash -lc 'echo ruled >> rule.txt'"
OFFERED = ("/bin/bash", "-lc", "echo ruled >> rule.txt")
"""What codex offers as the rule: the whole command (the model's prefix_rule is not used)."""


async def asked(log: EventLog, conversation_id: str, count: int) -> InteractionRequested:
    """The `count`-th request of the conversation, once it is asked."""
    await log.wait_for(
        InteractionRequested,
        lambda e: (
            e.conversation_id == conversation_id
            and len(log.of(InteractionRequested, conversation_id)) >= count
        ),
    )
    return log.of(InteractionRequested, conversation_id)[count - 1]


async def test_a_rule_says_what_it_would_have_run_and_is_listed_and_removed(
    deck: Deck, codex_home: Path, workspace: Path
) -> None:
    engine, log = deck
    here = (await engine.new_conversation()).id
    await engine.submit(here, "save a rule")
    for number in (1, 2):  # approved once each: nothing saved
        request = await asked(log, here, number)
        assert request.interaction.exec_policy_amendment == OFFERED
        assert request.interaction.rule_matches == (() if number == 1 else (RULED,))
        assert (await engine.respond(request.interaction.id, Approve("once"))).ok
    await log.turn_completed(here)
    await engine.submit(here, "run a command")  # `ls -la`: the rule would not run it
    await log.turn_completed(here, count=2)
    assert (await engine.execute(here, "/rules")).message.splitlines()[1] == "  none"

    await engine.submit(here, "save a rule")
    request = await asked(log, here, 3)
    assert request.interaction.rule_matches == (RULED,)
    assert (await engine.respond(request.interaction.id, Approve("rule"))).ok
    await log.turn_completed(here, count=3)
    assert len(log.of(InteractionRequested, here)) == 3, "the rule ran the second one"
    rules_file = codex_home / "rules" / "default.rules"
    saved = 'prefix_rule(pattern=["/bin/bash", "-lc", "echo ruled >> rule.txt"], decision="allow")'
    assert rules_file.read_text() == saved + "\n"

    listed = (await engine.execute(here, "/rules")).message
    assert f"  1. allow     {RULED}    ({rules_file}:1)" in listed.splitlines()
    assert listed.splitlines()[2:4] == [
        "This conversation's approvals for its session (until /reset):",
        "  none",
    ]
    nothing = await engine.execute(here, "/rules remove 2")
    assert not nothing.ok
    assert nothing.message == "There is no saved rule 2: /rules lists 1 (1 to 1)."
    removed = await engine.execute(here, "/rules remove 1")
    assert removed.ok, removed.message
    assert removed.message.startswith(f"Removed rule 1 (allow {RULED}) from {rules_file}.")
    assert rules_file.read_text() == ""

    # A new thread reads the rules again: it is asked, as before the rule.
    there = (await engine.new_conversation()).id
    await engine.submit(there, "save a rule")
    request = await asked(log, there, 1)
    assert request.interaction.rule_matches == ()
    assert (await engine.respond(request.interaction.id, Approve("once"))).ok
    await asked(log, there, 2)


async def test_a_rules_file_changed_since_it_was_listed_is_left_alone(
    deck: Deck, codex_home: Path
) -> None:
    engine, _ = deck
    here = (await engine.new_conversation()).id
    rules = codex_home / "rules"
    rules.mkdir()
    written = (
        "# mine\n"
        "prefix_rule(\n"
        '    pattern = ["git", ["push", "fetch"]],\n'
        '    decision = "prompt",  # ask (a comment with a ")" in it)\n'
        '    match = ["git push origin main"],\n'
        ")\n"
        'prefix_rule(pattern=["make", "test"], decision="allow")\n'
    )
    (rules / "team.rules").write_text(written)
    listed = (await engine.execute(here, "/rules")).message.splitlines()
    assert f'  1. prompt    ["git", ["push", "fetch"]]    ({rules}/team.rules:2)' in listed
    assert f"  2. allow     make test    ({rules}/team.rules:7)" in listed
    (rules / "team.rules").write_text(written.replace('"make", "test"', '"make", "check"'))
    refused = await engine.execute(here, "/rules remove 2")
    assert not refused.ok
    assert "changed since /rules listed it" in refused.message
    assert '"make", "check"' in (rules / "team.rules").read_text()

    removed = await engine.execute(here, "/rules remove 1")
    assert removed.ok, removed.message
    assert (rules / "team.rules").read_text() == (
        '# mine\nprefix_rule(pattern=["make", "check"], decision="allow")\n'
    )


async def test_the_sessions_approvals_are_listed_apart_from_the_saved_rules(deck: Deck) -> None:
    engine, log = deck
    here = (await engine.new_conversation()).id
    await engine.submit(here, "run it twice")
    request = await asked(log, here, 1)
    assert (await engine.respond(request.interaction.id, Approve("session"))).ok
    await log.turn_completed(here)
    listed = (await engine.execute(here, "/rules")).message.splitlines()
    assert listed[1:4] == [
        "  none",
        "This conversation's approvals for its session (until /reset):",
        "  • this session: `/bin/bash -lc 'echo again >> twice.txt'`",
    ]
