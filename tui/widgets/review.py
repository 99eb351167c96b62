"""A review codex finished, in the transcript: what it says overall, then each finding
(priority, file and lines, what is wrong), each one a line to move to; Enter on one opens
/diff at its file."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Static

from engine import Finding, findings_of
from tui.entries import ReviewEntry
from tui.text import inert

COMMENTS_MARK = "Full review comments:"
PRIORITY_STYLES = {0: "bold red", 1: "bold red", 2: "bold yellow", 3: "dim"}


class FindingLine(Static, can_focus=True):
    """One finding: `P1  path:1-2  title`, and what it says under it."""

    BINDINGS = [Binding("enter", "open", "Open the file's diff", id="review.open")]

    DEFAULT_CSS = """
    FindingLine { padding: 0 1; }
    FindingLine:focus { background: $boost; }
    """

    @dataclass
    class Open(Message):
        """Show the diff of the finding's file."""

        path: str

    def __init__(self, finding: Finding) -> None:
        text = Text()
        text.append(f"P{finding.priority}", style=PRIORITY_STYLES.get(finding.priority, ""))
        lines = (
            f"{finding.start}" if finding.start == finding.end else f"{finding.start}-{finding.end}"
        )
        text.append(f"  {inert(finding.path)}:{lines}  ", style="bold")
        text.append(inert(finding.title))
        if finding.body:
            text.append("\n" + inert(finding.body), style="dim")
        super().__init__(text)
        self.finding = finding

    def action_open(self) -> None:
        self.post_message(self.Open(self.finding.path))


class ReviewCell(Vertical):
    DEFAULT_CSS = """
    ReviewCell { height: auto; margin: 1 0 0 0; padding: 0 1; border-left: thick $accent; }
    ReviewCell .review-head { text-style: bold; }
    """

    def __init__(self, entry: ReviewEntry) -> None:
        super().__init__()
        self.entry = entry

    def compose(self) -> ComposeResult:
        review = self.entry.item.review
        findings = findings_of(review)
        overall = review.split(COMMENTS_MARK, 1)[0].strip()
        count = len(findings)
        head = f"review · {count} finding{'s' if count != 1 else ''}" if findings else "review"
        yield Static(head, classes="review-head", markup=False)
        if overall:
            yield Static(inert(overall), markup=False)
        for finding in findings:
            yield FindingLine(finding)
