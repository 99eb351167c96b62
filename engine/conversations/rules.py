"""The rules codex keeps for running commands without asking: what a rule it offers would
reach (which of a conversation's earlier commands it would have matched), the rules saved in
the `.rules` files of its config layers (the user's `CODEX_HOME/rules`, a project's
`.codex/rules`, the system's), read and changed where codex runs (its `fs/` methods), and the
session's standing approvals (`/rules`).

Codex reads the rules files as a thread starts: a rule removed still holds in the threads
running (as does a rule saved, from then on), and is gone from new threads."""

from __future__ import annotations

import json
import re
import shlex
import tokenize
from collections.abc import Callable, Iterable
from pathlib import PurePosixPath

import msgspec

from engine import protocol as wire
from engine.conversations.codex_files import read_text, write_text
from engine.conversations.conversation import Conversation
from engine.conversations.interactions import SAVED_RULE
from engine.errors import ConnectionClosed, RpcError
from engine.events import EngineEvent, ItemCompleted
from engine.protocol import CommandExecutionItem
from engine.results import CommandResult
from engine.transport.appserver import AppServer

SHELLS = {"bash", "sh", "zsh", "dash"}
SCRIPT_FLAGS = {"-c", "-lc"}
CONTROL = {";", "&&", "||", "|", "&", "\n"}
"""What separates the commands of a plain shell script."""
RULE_START = re.compile(r"^\s*prefix_rule\s*\(")
PATTERN = re.compile(r"\bpattern\s*=\s*(\[.*?\])\s*(?:,|\))", re.DOTALL)
DECISION = re.compile(r"\bdecision\s*=\s*\"(\w+)\"")


def commands_in(command: str) -> list[list[str]]:
    """The argv of a command as codex ran it, and, when it runs a plain shell script
    (`bash -lc '…'`), the argv of each command of that script: what a prefix rule is
    matched against."""
    try:
        argv = shlex.split(command)
    except ValueError:
        return [command.split()]
    found = [argv]
    if len(argv) == 3 and PurePosixPath(argv[0]).name in SHELLS and argv[1] in SCRIPT_FLAGS:
        lexer = shlex.shlex(argv[2], posix=True, punctuation_chars=";&|")
        lexer.whitespace_split = True
        try:
            tokens = list(lexer)
        except ValueError:
            return found
        current: list[str] = []
        for token in [*tokens, ";"]:
            if token in CONTROL:
                if current:
                    found.append(current)
                current = []
            else:
                current.append(token)
    return found


def would_match(prefix: Iterable[str], commands: Iterable[str]) -> list[str]:
    """Of `commands` (as codex ran them), those a rule allowing `prefix` matches."""
    wanted = list(prefix)
    if not wanted:
        return []
    return [
        command
        for command in commands
        if any(argv[: len(wanted)] == wanted for argv in commands_in(command))
    ]


def earlier_commands(events: Iterable[EngineEvent]) -> list[str]:
    """The commands a conversation ran, as its trace kept them, oldest first, each once."""
    seen: dict[str, None] = {}
    for event in events:
        if isinstance(event, ItemCompleted) and isinstance(event.item, CommandExecutionItem):
            seen.setdefault(event.item.command, None)
    return list(seen)


class SavedRule(msgspec.Struct, frozen=True):
    """A `prefix_rule` in one of codex's rules files."""

    path: str
    line: int
    """Where it starts in its file (from 1)."""
    text: str
    """As written (all its lines)."""
    pattern: str
    """Its pattern, as a command prefix where it is one (else as written)."""
    decision: str


def rules_in(path: str, text: str) -> list[SavedRule]:
    """The prefix rules written in `text` (the file at `path`), each with its lines."""
    rules: list[SavedRule] = []
    lines = text.splitlines(keepends=True)
    index = 0
    while index < len(lines):
        if not RULE_START.match(lines[index]):
            index += 1
            continue
        end = _rule_end(lines, index)
        written = "".join(lines[index : end + 1])
        rules.append(_rule(path, index + 1, written))
        index = end + 1
    return rules


def _rule_end(lines: list[str], start: int) -> int:
    """The last line of the rule that starts at `start`: where its parentheses close. A
    rules file is Starlark, which Python's tokenizer reads (strings and comments included)."""
    depth = 0
    readline = iter([*lines[start:], ""]).__next__
    try:
        for token in tokenize.generate_tokens(readline):
            if token.type != tokenize.OP or token.string not in "()[]{}":
                continue
            depth += 1 if token.string in "([{" else -1
            if depth == 0:
                return start + token.end[0] - 1
    except (tokenize.TokenError, SyntaxError):
        pass  # never closed: it runs to the end of the file
    return len(lines) - 1


def _rule(path: str, line: int, written: str) -> SavedRule:
    decision = DECISION.search(written)
    pattern = PATTERN.search(written)
    shown = pattern[1] if pattern else written.strip()
    if pattern:
        try:
            parts = json.loads(pattern[1])
        except ValueError:
            parts = None
        if isinstance(parts, list) and all(isinstance(part, str) for part in parts):
            shown = shlex.join(parts)
    return SavedRule(path, line, written, shown, decision[1] if decision else "allow")


class Rules:
    """The rules of the codex in use (`server()`), listed and removed with `/rules`."""

    def __init__(self, server: Callable[[], AppServer]) -> None:
        self._server = server
        self._listed: dict[str, list[SavedRule]] = {}
        """What `/rules` last showed, by conversation: `/rules remove N` removes that N."""

    async def describe(self, conversation: Conversation) -> CommandResult:
        """The saved rules (numbered) and the conversation's standing approvals."""
        try:
            saved = await self._saved(conversation.cwd)
        except (RpcError, ConnectionClosed) as error:
            return CommandResult(False, f"Could not read codex's rules: {error}")
        self._listed[conversation.id] = saved
        lines = ["Saved rules (codex reads them as each thread starts; they hold in every one):"]
        lines += [
            f"  {number}. {rule.decision:<9} {rule.pattern}    ({rule.path}:{rule.line})"
            for number, rule in enumerate(saved, 1)
        ] or ["  none"]
        lines.append("This conversation's approvals for its session (until /reset):")
        session = [grant for grant in conversation.grants if not grant.startswith(SAVED_RULE)]
        lines += [f"  • {grant}" for grant in session] or ["  none"]
        if saved:
            lines.append("/rules remove N removes saved rule N from its file.")
        return CommandResult(True, "\n".join(lines))

    async def remove(self, conversation: Conversation, number: int) -> CommandResult:
        """Remove saved rule `number` (as `/rules` last listed them here) from its file, if
        the file still holds it as listed; nothing is written otherwise."""
        listed = self._listed.get(conversation.id)
        try:
            if listed is None:
                listed = self._listed[conversation.id] = await self._saved(conversation.cwd)
            if not 1 <= number <= len(listed):
                count = len(listed)
                return CommandResult(
                    False,
                    f"There is no saved rule {number}: "
                    + (f"/rules lists {count} (1 to {count})." if count else "there are none."),
                )
            rule = listed[number - 1]
            text = await self._read(rule.path)
            if rule.text not in text:
                return CommandResult(
                    False,
                    f"{rule.path} changed since /rules listed it, and rule {number} is no "
                    "longer in it as listed; nothing was removed. /rules lists them again.",
                )
            at = _offset(text, rule)
            kept = text[:at] + text[at + len(rule.text) :]
            await write_text(self._server(), rule.path, kept)
        except (RpcError, ConnectionClosed) as error:
            return CommandResult(False, f"Could not change codex's rules: {error}")
        del listed[number - 1]
        return CommandResult(
            True,
            f"Removed rule {number} ({rule.decision} {rule.pattern}) from {rule.path}. "
            "New threads no longer have it (a new conversation, or /reset); the threads "
            "running keep it until then.",
        )

    async def _saved(self, cwd: str) -> list[SavedRule]:
        saved: list[SavedRule] = []
        for folder in await self._folders(cwd):
            for name in await self._files(folder):
                path = f"{folder}/{name}"
                saved += rules_in(path, await self._read(path))
        return saved

    async def _folders(self, cwd: str) -> list[str]:
        """The `rules` folders of codex's config layers (of files: beside each; of a
        project: in its `.codex`), the user's first."""
        params = wire.ConfigReadParams(cwd=cwd, include_layers=True)
        read = await self._server().call("config/read", params, wire.ConfigReadResult)
        folders: list[str] = []
        for layer in read.layers or []:
            source = layer.name
            if source.type == "user" and source.file:
                folders.insert(0, str(PurePosixPath(source.file).parent / "rules"))
            elif source.type == "project" and source.dot_codex_folder:
                folders.append(str(PurePosixPath(source.dot_codex_folder) / "rules"))
            elif source.type == "system" and source.file:
                folders.append(str(PurePosixPath(source.file).parent / "rules"))
        return list(dict.fromkeys(folders))

    async def _files(self, folder: str) -> list[str]:
        """The `.rules` files in `folder` (none when it is not there)."""
        params = wire.FsReadDirectoryParams(path=folder)
        try:
            listed = await self._server().call("fs/readDirectory", params, wire.FsDirectory)
        except RpcError:
            return []
        return sorted(
            e.file_name for e in listed.entries if e.is_file and e.file_name.endswith(".rules")
        )

    async def _read(self, path: str) -> str:
        try:
            return await read_text(self._server(), path)
        except UnicodeDecodeError:
            return ""  # not a rules file codex could read either


def _offset(text: str, rule: SavedRule) -> int:
    """Where the rule's text is in `text`: at its line when still there, else the first."""
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    at_line = starts[rule.line - 1] if rule.line - 1 < len(starts) else -1
    if at_line >= 0 and text.startswith(rule.text, at_line):
        return at_line
    return text.index(rule.text)
