"""What a prefix rule would reach, as codex matches it: a command's argv, and each command of a
plain shell script it runs."""

from __future__ import annotations

from engine.conversations.rules import commands_in, rules_in, would_match


def test_a_shell_script_is_matched_command_by_command() -> None:
    script = "/bin/bash -lc 'git fetch origin && git push origin main; make test | tee log'"
    assert commands_in(script) == [
        ["/bin/bash", "-lc", "git fetch origin && git push origin main; make test | tee log"],
        ["git", "fetch", "origin"],
        ["git", "push", "origin", "main"],
        ["make", "test"],
        ["tee", "log"],
    ]


def test_a_prefix_matches_whole_words_from_the_start_only() -> None:
    ran = [
        "/bin/bash -lc 'git push origin main'",
        "git push --force",
        "git pushy",
        "echo git push",
        "/bin/bash -lc 'unbalanced \"quote'",
    ]
    assert would_match(["git", "push"], ran) == ran[:2]
    assert would_match([], ran) == []


def test_rules_are_read_with_their_lines_and_a_pattern_that_is_a_prefix_shown_as_a_command() -> (
    None
):
    text = 'x = 1\nprefix_rule(pattern=["rm", "-rf", "build dir"])\n'
    [rule] = rules_in("/h/rules/a.rules", text)
    assert (rule.line, rule.pattern, rule.decision) == (2, "rm -rf 'build dir'", "allow")
    assert rule.text == text.splitlines(keepends=True)[1]
