"""Report + timing -> the attempt record: the one builder for every path that records.

The REPL (solve, warm-up, mock, team run), `drill check --record` and `team
run --file` all store an attempt through `attempt_from`, so the failing case,
the trap and the seed are taken from the report the same way everywhere.
The result is the `NewAttempt` that `Store.record_attempt` takes; `sitting_id` puts the
attempt in an open sitting (see trainer.practice.sittings), None makes it a sitting of its own.
"""
from __future__ import annotations

from datetime import datetime
from typing import Mapping

from grader.report import Report, Verdict
from trainer.store.records import NewAttempt


def attempt_from(report: Report, *, drill: str, mode: str, started_at: datetime, seconds: float,
                 code: str = "", hints: int = 0, session_id: int | None = None,
                 target_seconds: float | None = None, first_try: bool = True,
                 revealed: bool = False, sitting_id: int | None = None, kind: str = "write",
                 debug_trap: str | None = None) -> NewAttempt:
    """The attempt for `report`. `target_seconds=None` says the time is not solving time
    (graded after the fact), so a pass cannot be rated Easy. The variant recorded is the one
    the report was graded under (`Report.variant`). `kind` is
    'write' (from the skeleton) or 'debug' (a debug round, grader.rounds, with `debug_trap` the trap planted)."""
    shown = report.shown_case
    return NewAttempt(
        drill=drill, mode=mode, started_at=started_at, seconds=max(0.0, float(seconds)),
        verdict=str(Verdict.of(report.verdict)), failing_case=shown.name if shown else None,
        hints=int(hints), code=code, seed=report.seed, session_id=session_id,
        target_seconds=target_seconds, first_try=first_try, revealed=revealed,
        traps=(report.trap.id,) if report.trap else (), sitting_id=sitting_id, kind=kind, debug_trap=debug_trap,
        variant=report.variant,
    )


def revealed_attempt(*, drill: str, mode: str, started_at: datetime, seconds: float, code: str,
                     hints: int = 0, session_id: int | None = None, target_seconds: float | None = None,
                     first_try: bool = True, sitting_id: int | None = None,
                     variant: Mapping[str, str] | None = None, kind: str = "write",
                     debug_trap: str | None = None) -> NewAttempt:
    """The solution was revealed before a pass: recorded as a fail (of `variant`), with no grade."""
    report = Report(drill, Verdict.WRONG, [], variant=dict(variant or {}))
    return attempt_from(report, drill=drill, mode=mode, started_at=started_at, seconds=seconds, code=code,
                        hints=hints, session_id=session_id, target_seconds=target_seconds,
                        first_try=first_try, revealed=True, sitting_id=sitting_id, kind=kind,
                        debug_trap=debug_trap)
