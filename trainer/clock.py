"""Time, injected: a monotonic clock for durations and a UTC wall clock for records."""
from __future__ import annotations

import time
from datetime import datetime, timezone
from typing import Protocol


class Clock(Protocol):
    def monotonic(self) -> float: ...

    def now(self) -> datetime: ...


class SystemClock:
    def monotonic(self) -> float:
        return time.monotonic()

    def now(self) -> datetime:
        return datetime.now(timezone.utc)


class FakeClock:
    """A clock tests move by hand."""

    def __init__(self, start: datetime | None = None, mono: float = 1000.0):
        self._mono = mono
        self._start = start or datetime(2026, 12, 1, 9, 0, tzinfo=timezone.utc)
        self._t0 = mono

    def monotonic(self) -> float:
        return self._mono

    def now(self) -> datetime:
        from datetime import timedelta

        return self._start + timedelta(seconds=self._mono - self._t0)

    def advance(self, seconds: float) -> None:
        self._mono += seconds
