"""The reliability summary: every fault, load, input and security class the tests ran, with
how many cases and what was counted in them — submissions lost, turns re-run that nobody
asked for, actions taken without the user's approval, crashes. Tests record what they
measured with the `tally` fixture; the table is printed at the end of the run and written
to `reliability-report.md`. A pytest plugin (`-p tests.reliability.report`)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Generator, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from engine.scripted_model import ScriptedModel

REPORT = "reliability-report.md"
KINDS = ("fault", "load", "input", "security")
COUNTS = ("lost", "reruns", "unapproved", "crashes")


@dataclass
class Tally:
    """What one test measured in one class of fault, load or input."""

    kind: str
    case: str
    test: str
    cases: int
    lost: int | None
    reruns: int | None
    unapproved: int | None
    crashes: int | None
    passed: bool | None = None
    """Whether the test passed (None until its result is known)."""


TALLIES = pytest.StashKey[list[Tally]]()


class Ledger:
    """Records what a test measured. A count left None was not applicable to the case."""

    def __init__(self, test: str, tallies: list[Tally]) -> None:
        self._test = test
        self._tallies = tallies

    def __call__(
        self,
        kind: str,
        case: str,
        *,
        cases: int = 1,
        lost: int | None = None,
        reruns: int | None = None,
        unapproved: int | None = None,
        crashes: int | None = None,
    ) -> None:
        assert kind in KINDS, kind
        tally = Tally(kind, case, self._test, cases, lost, reruns, unapproved, crashes)
        self._tallies.append(tally)

    @contextmanager
    def counting(self, kind: str, case: str) -> Iterator[None]:
        """One generated case: a crash if the code under test raised (a failed check is a
        failure of the test, not a crash)."""
        try:
            yield
        except AssertionError:
            self(kind, case, crashes=0)
            raise
        except Exception:
            self(kind, case, crashes=1)
            raise
        self(kind, case, crashes=0)


def asked_of(model: ScriptedModel) -> Counter[str]:
    """How many times each message was sent to the model as a new turn (a tool's output sent
    back within a turn is not counted)."""
    requests = model.responses_requests()
    return Counter(r.user_text for r in requests if r.tool_calls_answered == 0)


def asked_in(log: Path) -> Counter[str]:
    """The same, from the request log of a scripted model run as a program (`--requests`)."""
    lines = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
    requests = [json.loads(line) for line in lines]
    return Counter(r["user_text"] for r in requests if r["tools"] == 0)


def lost_and_reruns(asked: Counter[str], sent: Iterable[str]) -> tuple[int, int]:
    """Of the messages `sent` (each meant to be answered once): how many never reached the
    model, and how many more times than that they were sent to it. (Requests codex makes of
    its own, such as compacting a full context, are neither.)"""
    wanted = Counter(sent)
    lost = sum(1 for text in wanted if asked[text] < wanted[text])
    reruns = sum(max(asked[text] - wanted[text], 0) for text in wanted)
    return lost, reruns


@pytest.fixture
def tally(request: pytest.FixtureRequest) -> Ledger:
    return Ledger(request.node.nodeid, request.config.stash[TALLIES])


def pytest_configure(config: pytest.Config) -> None:
    config.stash[TALLIES] = []


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if report.when == "call" or report.failed:
        for tally in item.config.stash[TALLIES]:
            if tally.test == item.nodeid and tally.passed is not False:
                tally.passed = report.passed
    return report


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, config: pytest.Config
) -> None:
    tallies = config.stash[TALLIES]
    if not tallies:
        return
    table = summary(tallies)
    path = config.rootpath / REPORT
    path.write_text(table, encoding="utf-8")
    terminalreporter.write_sep("=", "reliability summary")
    terminalreporter.write_line(table)
    terminalreporter.write_line(f"(written to {path.name})")


def summary(tallies: Sequence[Tally]) -> str:
    """The Markdown table: a row per class (tests of one class added up), then the totals."""
    rows: dict[tuple[str, str], list[Tally]] = {}
    for tally in sorted(tallies, key=lambda t: KINDS.index(t.kind)):
        rows.setdefault((tally.kind, tally.case), []).append(tally)
    lines = [
        "| kind | class | test files | cases | lost | re-runs | unapproved | crashes | result |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for (kind, case), group in rows.items():
        tests = sorted({t.test.split("::")[0].removeprefix("tests/") for t in group})
        counts = [_sum(group, name) for name in COUNTS]
        lines.append(
            f"| {kind} | {case} | {', '.join(tests)} | {sum(t.cases for t in group)} | "
            + " | ".join(counts)
            + f" | {_result(group)} |"
        )
    totals = [_sum(tallies, name) for name in COUNTS]
    lines.append(
        f"| **all** | {len(rows)} classes | {len({t.test for t in tallies})} tests | "
        f"{sum(t.cases for t in tallies)} | " + " | ".join(totals) + f" | {_result(tallies)} |"
    )
    return "\n".join(lines) + "\n"


def _sum(tallies: Iterable[Tally], name: str) -> str:
    counted = [value for t in tallies if (value := getattr(t, name)) is not None]
    return str(sum(counted)) if counted else "—"


def _result(tallies: Sequence[Tally]) -> str:
    failed = sum(1 for t in tallies if t.passed is False)
    unknown = sum(1 for t in tallies if t.passed is None)
    if failed:
        return f"**{failed} FAILED**"
    return "passed" if not unknown else f"{unknown} unfinished"
