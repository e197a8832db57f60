"""One member's timed pass through a team session (`drill team run`), driven by the CLI."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from trainer.clock import MonotonicClock
from trainer.team.results import DrillResult, Run, session_run
from trainer.team.session import TeamSession


@dataclass
class TeamRun:
    """One member's pass through a session: drills in order under one countdown that
    never pauses (the session's minutes). The CLI runs each drill and hands back a result."""

    session: TeamSession
    clock: MonotonicClock
    done: list[DrillResult] = field(default_factory=list)
    stopped: bool = False
    started: float = 0.0
    _next: int = 0

    def __post_init__(self) -> None:
        self.started = self.clock.monotonic()

    @property
    def deadline(self) -> float:
        return self.started + self.session.minutes * 60

    def left(self) -> float:
        return max(0.0, self.deadline - self.clock.monotonic())

    def over(self) -> bool:
        return self.stopped or self.left() <= 0

    def next_drill(self) -> str | None:
        if self.over() or self._next >= len(self.session.drills):
            return None
        drill = self.session.drills[self._next]
        self._next += 1
        return drill

    def position(self) -> tuple[int, int]:
        return self._next, len(self.session.drills)

    def add(self, result: DrillResult, stop: bool = False) -> None:
        self.done.append(result)
        if stop:
            self.stopped = True

    def run(self, finished_at: datetime, mode: str = "repl") -> Run:
        return session_run(self.session, self.done, finished_at, mode)
