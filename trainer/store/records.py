"""The store's values: what goes in (``NewAttempt``) and what comes out (the records).

Frozen dataclasses with no behaviour, so callers (the REPL, the CLI, reports)
can hold and pass them without touching SQL or importing the Store.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Mapping

from trainer.schedule.adapter import DEFAULT_DAILY_NEW_LIMIT, DEFAULT_RETENTION, CardState

SESSION_KINDS: tuple[str, ...] = ("warmup", "mock", "team")
# attempts.kind (schema v5): written from the skeleton, a debug round (grader.rounds), or a mock's
# follow-up (the person's passing code adapted to a variant, trainer.practice.flows)
ATTEMPT_KINDS: tuple[str, ...] = ("write", "debug", "followup")


# Attempts whose ``seconds`` time the grader, not the person: `drill check --record`
# and `team run --file` record the grading time with no target. They count as
# practice, never as a "best" or a trend point. Nor does a mock's follow-up: its
# seconds are the time to adapt code already written, not to solve the drill. The one
# definition of a solving time: `drill list` (the store's SQL below) and `drill report`
# (trainer.reports) use it.
UNTIMED_MODES = ("check", "team", "watch")
UNTIMED_KINDS = ("followup",)
TIMED_SQL = ("(NOT (mode IN (" + ", ".join(f"'{m}'" for m in UNTIMED_MODES) + ") AND target_seconds IS NULL) "
             "AND kind NOT IN (" + ", ".join(f"'{k}'" for k in UNTIMED_KINDS) + "))")


def is_timed(mode: str, target_seconds: float | None, kind: str = "write") -> bool:
    """Whether an attempt's ``seconds`` is a solving time (see TIMED_SQL, the same rule in SQL)."""
    return not (mode in UNTIMED_MODES and target_seconds is None) and kind not in UNTIMED_KINDS


@dataclass(frozen=True)
class NewAttempt:
    """One attempt to record with ``Store.record_attempt``. ``sitting_id`` puts it in an open
    sitting; None makes it a sitting of its own. ``target_seconds=None`` says the time is
    not solving time (graded after the fact), so a pass cannot be rated Easy."""

    drill: str
    mode: str
    started_at: datetime
    seconds: float
    verdict: str
    failing_case: str | None = None
    hints: int = 0
    code: str = ""
    seed: int | None = None
    session_id: int | None = None
    target_seconds: float | None = None
    first_try: bool = True
    revealed: bool = False
    traps: tuple[str, ...] = ()
    sitting_id: int | None = None
    variant: Mapping[str, str] = field(default_factory=dict)  # the non-default choices graded; {} = the default
    kind: str = "write"  # ATTEMPT_KINDS: from the skeleton, a debug round (grader.rounds), a mock's follow-up
    debug_trap: str | None = None  # a debug round: the trap planted in the code it opened on

    def __post_init__(self) -> None:
        object.__setattr__(self, "traps", tuple(self.traps or ()))  # a list given is kept as a tuple
        object.__setattr__(self, "variant", {str(k): str(v) for k, v in dict(self.variant or {}).items()})


@dataclass(frozen=True)
class RecordResult:
    """What recording an attempt did. ``rating`` is None (and the card untouched) for
    ``internal``; ``due`` is the drill's next due date (aware UTC), None if it has no card."""

    attempt_id: int
    uid: str
    rating: int | None
    due: datetime | None
    card: CardState | None


@dataclass(frozen=True)
class AttemptRecord:
    id: int
    uid: str
    drill: str
    mode: str
    started_at: datetime
    seconds: float
    verdict: str
    failing_case: str | None
    hints: int
    code: str
    seed: int | None
    session_id: int | None
    traps: tuple[str, ...]
    revealed: bool
    first_try: bool
    target_seconds: float | None
    rating: int | None
    sitting_id: int | None = None
    variant: Mapping[str, str] = field(default_factory=dict)  # the non-default choices graded; {} = the default
    kind: str = "write"
    debug_trap: str | None = None


@dataclass(frozen=True)
class ReviewRecord:
    attempt_id: int | None
    drill: str
    rating: int
    reviewed_at: datetime
    duration_ms: int | None
    sitting_id: int | None = None


@dataclass(frozen=True)
class SittingRecord:
    """One sitting. ``rating`` is None while undecided, and for an untouched sitting."""

    id: int
    uid: str
    drill: str
    mode: str
    session_id: int | None
    target_seconds: float | None
    opened_at: datetime
    closed_at: datetime | None
    outcome: str | None
    rating: int | None


@dataclass(frozen=True)
class SessionRecord:
    id: int
    uid: str
    kind: str
    started_at: datetime
    ended_at: datetime | None
    meta: dict[str, Any]
    summary: dict[str, Any] | None


@dataclass(frozen=True)
class DrillSummary:
    """One drill's progress: ``state`` is new, learning, review or relearning."""

    drill: str
    state: str
    due: datetime | None
    best_seconds: float | None
    attempts: int
    passes: int
    first_attempt: datetime | None
    last_attempt: datetime | None
    card: CardState | None


@dataclass(frozen=True)
class Settings:
    retention: float = DEFAULT_RETENTION
    daily_new_limit: int = DEFAULT_DAILY_NEW_LIMIT
    vi_mode: bool = False
    plan: str = "default"
    debug_share: float = 0.25
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ImportResult:
    attempts_added: int
    attempts_skipped: int
    sessions_added: int
    cards_updated: int
    settings_taken: int = 0  # settings the file had and this database did not
    holds_changed: int = 0  # drills whose suspension or burial the file changed
    backup: Any = None  # the backup taken before the import (a Path), None when there was nothing to keep


@dataclass(frozen=True)
class ResetResult:
    attempts_removed: int
    cards_removed: int
    sessions_removed: int
    backup: Path | None
