"""One member's timed pass through a team session (`drill team run`), driven by the CLI."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from trainer.clock import MonotonicClock
from trainer.team.results import DrillResult, Run, session_run
from trainer.team.session import TeamSession
from trainer.practice.timed_queue import TimedQueue


@dataclass
class TeamRun:
    """One member's pass through a session: drills in order under one countdown that
    never pauses (the session's minutes), a TimedQueue (trainer.practice.timed_queue). The CLI runs
    each drill and hands back a result."""

    session: TeamSession
    clock: MonotonicClock
    queue: TimedQueue[str, DrillResult] = field(init=False)

    def __post_init__(self) -> None:
        self.queue = TimedQueue(self.session.drills, self.clock, self.session.minutes)

    def run(self, finished_at: datetime, mode: str = "repl", current: DrillResult | None = None) -> Run:
        """The run so far; ``current`` is the drill still open (passed, not yet left)."""
        done = self.queue.results + ([current] if current is not None else [])
        return session_run(self.session, done, finished_at, mode)
