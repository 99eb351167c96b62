"""/diff: the working tree's changes against HEAD (git, run where codex runs, so it is right on
a codex on another machine too), or the changes of the conversation's latest turn; split into
files for a view with a file list."""

from __future__ import annotations

from typing import Literal

import msgspec

from engine import protocol as wire
from engine.conversations.core import Core
from engine.errors import CodexDeckError, ConnectionClosed, RpcError

DiffOf = Literal["tree", "turn"]
GIT_SECONDS = 30
UNTRACKED_SHOWN = 50
"""New files not yet known to git that are shown with their content; the rest are named."""
READ_ONLY: dict[str, object] = {"type": "readOnly"}


class DiffUnavailable(CodexDeckError):
    """There is no diff to show; the message says why."""


class FileDiff(msgspec.Struct, frozen=True):
    path: str
    kind: Literal["changed", "new", "deleted", "renamed"]
    diff: str
    """The file's part of the unified diff, its hunks."""


class DiffView(msgspec.Struct, frozen=True):
    title: str
    files: tuple[FileDiff, ...]
    note: str = ""
    """Anything left out, in words."""

    def summary(self) -> str:
        if not self.files:
            return f"{self.title}: nothing changed."
        named = ", ".join(
            file.path + ("" if file.kind == "changed" else f" ({file.kind})") for file in self.files
        )
        count = len(self.files)
        said = f"{self.title}: {count} file{'s' if count != 1 else ''} — {named}"
        return f"{said}. {self.note}" if self.note else said + "."


def split_diff(text: str) -> list[FileDiff]:
    """A unified diff (`git diff` or codex's turn diff) as one entry per file."""
    files: list[FileDiff] = []
    blocks = [block for block in text.split("\ndiff --git ") if block.strip()]
    for number, block in enumerate(blocks):
        block = block if number or not block.startswith("diff --git ") else block[11:]
        header, _, body = block.partition("\n")
        lines = body.split("\n")
        kind: Literal["changed", "new", "deleted", "renamed"] = "changed"
        path = header.split(" b/", 1)[-1].strip() if " b/" in header else header.strip()
        for line in lines[:6]:
            if line.startswith("new file mode"):
                kind = "new"
            elif line.startswith("deleted file mode"):
                kind = "deleted"
                path = header.split(" b/", 1)[0].removeprefix("a/").strip()
            elif line.startswith("rename to "):
                kind = "renamed"
                path = line.removeprefix("rename to ").strip()
        hunks = body[body.find("@@") :] if "@@" in body else ""
        files.append(FileDiff(path, kind, hunks))
    return files


class Diffs:
    def __init__(self, core: Core) -> None:
        self._core = core

    async def diff(self, conversation_id: str, of: DiffOf) -> DiffView:
        """The diff `of` the working tree against HEAD, or of the latest turn.

        Raises:
            DiffUnavailable: no git checkout there, git or codex failed, or no turn changed
                anything yet (the message says which).
        """
        conversation = self._core.conversations.get(conversation_id)
        if of == "turn":
            changed = conversation.latest_turn_diff
            if not changed:
                raise DiffUnavailable("No turn has changed a file here yet.")
            return DiffView("The latest turn's changes", tuple(split_diff(changed)))
        reason = self._core.link.not_running()
        if reason is not None:
            raise DiffUnavailable(f"codex is not running ({reason}): git cannot be asked.")
        cwd = conversation.cwd
        tracked = await self._git(cwd, ["diff", "HEAD", "--no-color", "--no-ext-diff", "-M"])
        files = split_diff(tracked)
        untracked = await self._git(cwd, ["ls-files", "--others", "--exclude-standard"])
        new = [path for path in untracked.splitlines() if path]
        for path in new[:UNTRACKED_SHOWN]:
            shown = await self._git(
                cwd, ["diff", "--no-color", "--no-index", "--", "/dev/null", path]
            )
            files += [FileDiff(path, "new", file.diff) for file in split_diff(shown)]
        left = len(new) - UNTRACKED_SHOWN
        note = f"{left} more new files are not shown." if left > 0 else ""
        return DiffView(f"Changes against HEAD in {cwd}", tuple(files), note)

    async def _git(self, cwd: str, arguments: list[str]) -> str:
        params = wire.CommandExecParams(
            command=["git", *arguments],
            cwd=cwd,
            sandbox_policy=READ_ONLY,
            timeout_ms=GIT_SECONDS * 1000,
        )
        try:
            ran = await self._core.server.command_exec(params)
        except (RpcError, ConnectionClosed) as error:
            raise DiffUnavailable(f"codex could not run git in {cwd}: {error}") from None
        # `git diff --no-index` exits 1 when the files differ: that is its answer, not a failure.
        if ran.exit_code not in (0, 1) or (ran.exit_code == 1 and "--no-index" not in arguments):
            said = ran.stderr.strip().splitlines()
            if "not a git repository" in ran.stderr.lower():
                raise DiffUnavailable(f"{cwd} is not a git checkout: /diff has nothing to compare.")
            raise DiffUnavailable(
                f"git {arguments[0]} failed in {cwd}: {said[0] if said else ran.exit_code}"
            )
        return ran.stdout
