"""The board's model: one session's results merged into a leaderboard.

Each member is ranked by their best run that can be trusted; a run graded on
other cases than most members' is left out, and a member with no such run is
flagged instead. trainer.team.render draws a ``Board`` as text, Markdown or HTML.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import datetime
from typing import Mapping, Sequence

from trainer.team.results import DrillResult, MemberResult, Run, run_key


@dataclass(frozen=True)
class BoardRow:
    rank: int
    member: MemberResult
    run: Run  # the member's best run that can be trusted
    flagged_runs: int = 0  # the member's runs left out (graded on other cases)

    @property
    def runs(self) -> int:
        return len(self.member.runs)

    def cell(self, drill: str) -> DrillResult | None:
        return self.run.cell(drill)


@dataclass(frozen=True)
class Flag:
    """A results file on the board's folder that is not ranked, and why."""

    name: str
    source: str
    reason: str


@dataclass(frozen=True)
class DrillColumn:
    drill: str
    solved_by: int
    fastest: float | None  # timed passes only
    fastest_names: tuple[str, ...]


@dataclass(frozen=True)
class TeamMistake:
    trap: str
    count: int  # times matched, all members together
    members: int  # how many members made it
    drills: tuple[str, ...]


@dataclass(frozen=True)
class Board:
    session: str | None
    drills: tuple[str, ...]
    rows: tuple[BoardRow, ...]
    columns: tuple[DrillColumn, ...]
    mistakes: tuple[TeamMistake, ...]
    flagged: tuple[Flag, ...] = ()
    untimed: bool = False  # some ranked run is untimed


def choose_session(results: Sequence[MemberResult], wanted: str | None = None) -> str | None:
    """The session the board is about: ``wanted``, else the one most members ran (ties: the
    earliest finished)."""
    if wanted is not None or not results:
        return wanted
    counts = Counter(r.session for r in results)
    first: dict[str, datetime] = {}
    for r in sorted(results, key=lambda r: min(run.finished_at for run in r.runs)):
        first.setdefault(r.session, min(run.finished_at for run in r.runs))
    return min(counts, key=lambda s: (-counts[s], first[s]))


def split_foreign(results: Sequence[MemberResult], session: str | None) -> tuple[list[MemberResult], list[MemberResult]]:
    """(results of ``session``, results of any other session)."""
    mine = [r for r in results if session is None or r.session == session]
    return mine, [r for r in results if r not in mine]


def reference_cases(results: Sequence[MemberResult]) -> dict[str, tuple[str, str]]:
    """Per drill, the case hash most members were graded on, with the grader that made it
    (ties: the hash of the earliest run). The board measures every run against it."""
    members: dict[str, Counter[str]] = defaultdict(Counter)
    first: dict[tuple[str, str], tuple[datetime, str]] = {}
    for r in results:
        seen: set[tuple[str, str]] = set()
        for run in r.runs:
            for d in run.drills:
                if d.cases is None:
                    continue
                key = (d.drill, d.cases)
                if key not in seen:
                    seen.add(key)
                    members[d.drill][d.cases] += 1
                if key not in first or run.finished_at < first[key][0]:
                    first[key] = (run.finished_at, run.grader)
    out = {}
    for drill, counts in members.items():
        best = min(counts, key=lambda h: (-counts[h], first[(drill, h)][0], h))
        out[drill] = (best, first[(drill, best)][1])
    return out


def run_problem(run: Run, reference: Mapping[str, tuple[str, str]]) -> str | None:
    """Why a run cannot be ranked with the others, or None: a drill graded on other cases
    than most members' (another catalogue or grader), or a pass with no record of its cases."""
    for d in run.drills:
        ref = reference.get(d.drill)
        if d.cases is not None and ref is not None and d.cases != ref[0]:
            versions = f"; graded by {run.grader}, most members by {ref[1]}" if run.grader != ref[1] else ""
            return f"{d.drill} was graded on other cases than most members' (case hash {d.cases}, " \
                   f"not {ref[0]}{versions})"
        if d.solved and d.cases is None:
            return f"{d.drill} has no record of the cases it was graded on"
    return None


def build_board(results: Sequence[MemberResult], drills: Sequence[str] | None = None,
                flagged: Sequence[Flag] = ()) -> Board:
    """Leaderboard of one session's results. Each member is ranked by their best run that
    can be trusted (see ``run_key``; members level on it share a rank); a member whose every
    run was graded on other cases is flagged instead, as are the ``flagged`` files the caller
    found (another session, a drill not in the session)."""
    order: list[str] = list(drills or [])
    for r in results:
        for run in r.runs:
            for d in run.drills:
                if d.drill not in order:
                    order.append(d.drill)
    reference = reference_cases(results)
    entries: list[tuple[MemberResult, Run, int]] = []
    flags = list(flagged)
    for r in results:
        problems = [run_problem(run, reference) for run in r.runs]
        good = [run for run, p in zip(r.runs, problems) if p is None]
        if not good:
            flags.append(Flag(r.name, r.source, next(p for p in reversed(problems) if p)))
            continue
        entries.append((r, min(good, key=lambda run: (run_key(run), run.finished_at)), len(r.runs) - len(good)))
    entries.sort(key=lambda e: (run_key(e[1]), e[0].name.casefold(), e[0].source))
    rows: list[BoardRow] = []
    for i, (member, run, bad) in enumerate(entries):
        prev = rows[-1] if rows else None
        rank = prev.rank if prev is not None and run_key(prev.run) == run_key(run) else i + 1
        rows.append(BoardRow(rank, member, run, bad))
    columns = []
    for drill in order:
        cells = [(row.cell(drill), row.member.name) for row in rows]
        solved = [(d, n) for d, n in cells if d is not None and d.solved]
        timed = [(d.seconds, n) for d, n in solved if d.seconds is not None]
        fastest = min((t for t, _ in timed), default=None)
        columns.append(DrillColumn(drill, len(solved), fastest, tuple(sorted(n for t, n in timed if t == fastest))))
    counts: Counter[str] = Counter()
    makers: dict[str, set[int]] = {}
    where: dict[str, list[str]] = {}
    for i, row in enumerate(rows):
        for d in row.run.drills:
            for trap in d.traps:
                counts[trap] += 1
                makers.setdefault(trap, set()).add(i)
                if d.drill not in where.setdefault(trap, []):
                    where[trap].append(d.drill)
    mistakes = sorted((TeamMistake(t, n, len(makers[t]), tuple(where[t])) for t, n in counts.items()),
                      key=lambda m: (-m.members, -m.count, m.trap))
    session = results[0].session if results else None
    return Board(session, tuple(order), tuple(rows), tuple(columns), tuple(mistakes), tuple(flags),
                 any(not row.run.timed for row in rows))
