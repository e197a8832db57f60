"""One sitting, as the flows record it: the store calls behind `check --record`,
`watch --record`, `solve`, warm-ups, mocks and team runs.

A `SittingRecorder` is the `record` callable a flow already has (it takes the
`NewAttempt` that `trainer.practice.attempts.attempt_from` builds):
the first attempt opens the sitting, dated at that attempt's `started_at` (the
drill's opening time in the REPL), and every attempt goes into it; `close(status)`
ends it, and an undecided sitting is rated then (see trainer.schedule.adapter). A
sitting with no attempt is never written at all. Each call opens the store
afresh (one transaction each), so a killed process loses nothing that was
acknowledged, and its open sitting is rated the next time any process opens the
store.
"""
from __future__ import annotations

import sys
from dataclasses import replace
from datetime import datetime, timezone
from typing import Any, Callable

from trainer.text.markup import printable
from trainer.store.records import NewAttempt


def _open_store() -> Any:
    from trainer.store import open_store

    return open_store()


class SittingRecorder:
    """record(attempt) into one sitting; close(status) ends it."""

    def __init__(self, opener: Callable[[], Any] = _open_store,
                 warn: Callable[[str], None] | None = None) -> None:
        self.opener = opener
        self.warn = warn or (lambda text: print(text, file=sys.stderr))
        self.sitting_id: int | None = None
        self.closed = False

    def __call__(self, attempt: NewAttempt) -> Any:
        if self.closed:
            raise ValueError("this sitting is closed; open a new one")
        with self.opener() as store:
            if self.sitting_id is None:
                self.sitting_id = store.open_sitting(
                    attempt.drill, attempt.mode, session_id=attempt.session_id,
                    target_seconds=attempt.target_seconds, opened_at=attempt.started_at)
            return store.record_attempt(replace(attempt, sitting_id=self.sitting_id))

    def close(self, status: str, *, revealed: bool = False, hints: int = 0) -> Any:
        """End the sitting (a no-op when nothing was recorded); returns its SittingRecord or
        None. A store problem is reported as one line: the sitting is then rated the next
        time drill opens the store, after this process has ended."""
        if self.closed or self.sitting_id is None:
            self.closed = True
            return None
        from trainer.store import StoreError

        try:
            with self.opener() as store:
                record = store.close_sitting(self.sitting_id, status, revealed=revealed, hints=hints)
        except (StoreError, ValueError) as exc:
            self.warn(f"drill: could not close this sitting ({printable(str(exc))}); "
                      "it is rated the next time drill opens your progress.")
            return None
        self.closed = True
        return record


class WatchSitting:
    """`watch --record`: one sitting from the start of the watch to the first pass (or
    Ctrl-C). Saves graded after the pass are shown, not recorded."""

    def __init__(self, drill: str, target_seconds: float | None, recorder: SittingRecorder | None = None,
                 now: Callable[[], datetime] | None = None, monotonic: Callable[[], float] | None = None) -> None:
        import time

        self.drill = drill
        self.target_seconds = target_seconds
        self.recorder = recorder or SittingRecorder()
        self.now = now or (lambda: datetime.now(timezone.utc))
        self.monotonic = monotonic or time.monotonic
        self.started_at = self.now()
        self.started = self.monotonic()
        self.attempts = 0
        self.done = False

    def record(self, report: Any, source: str) -> str:
        """Record one graded save; returns the line to show under its verdict."""
        if self.done:
            return "(not recorded: this watch already recorded its pass)"
        from trainer.practice.attempts import attempt_from
        from grader.report import Verdict

        self.attempts += 1
        attempt = attempt_from(report, drill=self.drill, mode="watch", started_at=self.started_at,
                               seconds=self.monotonic() - self.started, code=source,
                               target_seconds=self.target_seconds, first_try=self.attempts == 1)
        try:
            result = self.recorder(attempt)
        except Exception as exc:  # noqa: BLE001 - a store problem must not stop the watch
            return f"could not record this save: {printable(str(exc))}"
        if Verdict.of(report.verdict) != Verdict.PASS:
            return "recorded"
        self.done = True
        self.recorder.close("passed")
        return f"recorded: {_rated(result, self.now())}; later saves are graded but not recorded"

    def close(self) -> None:
        if not self.done:
            self.recorder.close("left")
            self.done = True


def _rated(result: Any, now: datetime) -> str:
    from fsrs import Rating

    from trainer.text.verdict import when

    rating = getattr(result, "rating", None)
    name = Rating(rating).name if rating else "not rated"
    due = getattr(result, "due", None)
    return f"rated {name}" + (f", due again {when(due, now)}" if due is not None else "")
