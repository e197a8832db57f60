"""A timed queue: items done in order against one clock and an optional limit.

Warm-up, mock interview and team run are the same shape: take the next item
unless the person stopped or the time is up (an item already started is always
finished), keep each item's result, and at the end say what was not reached.
Each flow (trainer.practice.flows' Warmup and Mock, trainer.team's TeamRun) composes
one TimedQueue and adds only what is its own: the summary, the report, the run.
Time comes from an injected clock (anything with `monotonic()`), so tests are
exact; there is no I/O here (trainer.cli.timed runs a queue from the CLI).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generic, Sequence, TypeVar

from trainer.clock import MonotonicClock

T = TypeVar("T")  # an item
R = TypeVar("R")  # what doing an item came to


@dataclass
class TimedQueue(Generic[T, R]):
    """`items` in order; `minutes` is the limit (None: no limit), counted from creation and
    never paused."""

    items: Sequence[T]
    clock: MonotonicClock
    minutes: float | None = None
    results: list[R] = field(default_factory=list)
    started: float = 0.0
    stopped: bool = False
    _next: int = 0

    def __post_init__(self) -> None:
        self.started = self.clock.monotonic()

    @property
    def deadline(self) -> float | None:
        """The clock's monotonic reading when the time is up; None without a limit."""
        return None if self.minutes is None else self.started + self.minutes * 60

    def left(self) -> float | None:
        """Seconds left (never below 0); None without a limit."""
        deadline = self.deadline
        return None if deadline is None else max(0.0, deadline - self.clock.monotonic())

    def time_up(self) -> bool:
        deadline = self.deadline
        return deadline is not None and self.clock.monotonic() >= deadline

    def over(self) -> bool:
        """No further item starts: the person stopped or the time is up."""
        return self.stopped or self.time_up()

    def elapsed(self) -> float:
        return self.clock.monotonic() - self.started

    def next(self) -> T | None:
        """The next item, or None when all are done, the person stopped, or the time is up."""
        if self.over() or self._next >= len(self.items):
            return None
        item = self.items[self._next]
        self._next += 1
        return item

    def position(self) -> tuple[int, int]:
        """(items started so far, all items): the label `mock 2/3` of the item just taken."""
        return self._next, len(self.items)

    def add(self, result: R, stop: bool = False) -> None:
        """The result of the item just done; `stop` ends the queue (the person left)."""
        self.results.append(result)
        if stop:
            self.stopped = True

    def not_reached(self) -> list[T]:
        """The items never started."""
        return list(self.items[self._next:])
