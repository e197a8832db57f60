"""A member's results: the runs they made of one session, and the results file's text.

A **results file** (JSON, one per member, ``DIR/<safe name>.json``) holds every
run the member made of the session, oldest first: a re-run adds a run and keeps
the earlier ones. Each run records the grader's version and, per drill, a hash
of the cases it was graded on (``grader.cases.case_hash``), so the board can tell a
run graded on other cases from the rest. A run made with ``--file`` grades
files after the fact: it is untimed, and its ``seconds`` are null::

    {"format": 2, "kind": "drill-team-results", "session": "<id>", "name": "Ada",
     "runs": [{"finished_at": "2026-12-01T18:30:00+00:00", "mode": "repl",
               "grader": "drill 0.1.0",
               "drills": [{"drill": "gqa", "status": "passed", "seconds": 312.5,
                           "attempts": 2, "hints": 0, "traps": ["no-scale"],
                           "cases": "3f9a0c1d2e4b5a69"}]}]}

Reading one back, as the untrusted input it is, is ``trainer.team.reading``'s job.
"""
from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from dataclasses import dataclass
from datetime import datetime
from typing import Sequence

from trainer.team.session import TeamSession

RESULTS_FORMAT = 2
RESULTS_KIND = "drill-team-results"
MAX_NAME = 64
STATUSES = ("passed", "failed", "skipped", "quit", "timeout", "not reached")
MODES = ("repl", "files")
_SAFE_CHARS = re.compile(r"[^A-Za-z0-9._-]+")


def grader_version() -> str:
    """The version of drill that graded a run (grader and catalogue ship together)."""
    from trainer import __version__

    return f"drill {__version__}"


@dataclass(frozen=True)
class DrillResult:
    drill: str
    status: str  # one of STATUSES
    seconds: float | None  # the solving time; None when untimed (a file graded after the fact)
    attempts: int = 0
    hints: int = 0
    traps: tuple[str, ...] = ()
    cases: str | None = None  # the hash of the cases it was graded on; None when never graded

    @property
    def solved(self) -> bool:
        return self.status == "passed"

    @property
    def timed(self) -> bool:
        return self.seconds is not None


@dataclass(frozen=True)
class Run:
    """One pass through the session by one member."""

    finished_at: datetime
    mode: str  # "repl" (timed) or "files" (graded after the fact: untimed)
    grader: str
    drills: tuple[DrillResult, ...]

    @property
    def timed(self) -> bool:
        return self.mode == "repl"

    @property
    def solved(self) -> int:
        return sum(1 for d in self.drills if d.solved)

    @property
    def solved_seconds(self) -> float | None:
        """Time on the solved drills; None for an untimed run or when nothing was solved."""
        if not self.timed or not self.solved:
            return None
        return round(sum(d.seconds or 0.0 for d in self.drills if d.solved), 1)

    def cell(self, drill: str) -> DrillResult | None:
        return next((d for d in self.drills if d.drill == drill), None)


def run_key(run: Run) -> tuple[int, int, float]:
    """How runs rank: most solved first; at equal solved every timed run before every
    untimed one; timed runs by least time on the solved drills."""
    return (-run.solved, 0 if run.timed else 1, run.solved_seconds or 0.0)


@dataclass(frozen=True)
class MemberResult:
    """A member's results file: every run they made of one session, oldest first."""

    name: str
    session: str
    runs: tuple[Run, ...]
    source: str = ""  # the file it was read from (for the board)

    @property
    def latest(self) -> Run:
        return self.runs[-1]


def member_filename(name: str) -> str:
    """A safe file name for a member: letters, digits, `.`, `_` and `-` only, never hidden,
    at most 48 characters before the suffix. When the name had to change, a short hash of
    the original is added so that two different names never share a file."""
    slug = _SAFE_CHARS.sub("-", unicodedata.normalize("NFKC", name)).strip(".-_")[:48].strip(".-_")
    if slug != name or not slug:
        slug = (slug or "member") + "-" + hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return slug + ".json"


def check_name(name: str) -> str:
    """The member name, trimmed; ValueError when it is empty, too long or holds control characters."""
    name = name.strip()
    if not name:
        raise ValueError("the name is empty; pass --name YOUR_NAME")
    if len(name) > MAX_NAME:
        raise ValueError(f"the name is {len(name)} characters long; at most {MAX_NAME}")
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Cs") for ch in name):
        raise ValueError("the name holds control characters")
    return name


def session_run(session: TeamSession, done: Sequence[DrillResult], finished_at: datetime, mode: str = "repl",
                grader: str | None = None) -> Run:
    """One run: every session drill, in session order; drills not run are 'not reached'
    (untimed in a files run, where nothing is timed)."""
    by_drill = {d.drill: d for d in done}
    idle = 0.0 if mode == "repl" else None
    rows = tuple(by_drill.get(d, DrillResult(d, "not reached", idle)) for d in session.drills)
    return Run(finished_at, mode, grader or grader_version(), rows)


def add_run(earlier: MemberResult | None, session: TeamSession, name: str, run: Run) -> MemberResult:
    """The member's file with ``run`` after the runs it already holds (a re-run keeps them)."""
    runs = earlier.runs if earlier is not None else ()
    return MemberResult(check_name(name), session.id, runs + (run,))


def results_json(result: MemberResult) -> str:
    return json.dumps({
        "format": RESULTS_FORMAT, "kind": RESULTS_KIND, "session": result.session, "name": result.name,
        "runs": [{
            "finished_at": run.finished_at.isoformat(), "mode": run.mode, "grader": run.grader,
            "drills": [{"drill": d.drill, "status": d.status,
                        "seconds": None if d.seconds is None else round(d.seconds, 1),
                        "attempts": d.attempts, "hints": d.hints, "traps": list(d.traps), "cases": d.cases}
                       for d in run.drills]} for run in result.runs],
    }, indent=2, ensure_ascii=False) + "\n"
