"""Time, injected, and time shown: the one clock type and the one `mm:ss`.

Every timed flow (the REPL, warm-up, mock, team run) and the store take their
time from here so that tests can drive it by hand: ``Clock`` gives a monotonic
reading for durations and a UTC wall clock for records; ``MonotonicClock`` is
the part a countdown needs; ``Now`` is a clock's wall-clock part alone, what
the store and the scheduler take (``clock.now``, or ``utc_now``, a function
returning the current UTC time). ``SystemClock`` is the real one, ``FakeClock``
the one tests move. ``PersonClock`` wraps either: the person's time, which stops
while the grader works (from a submit to its verdict), so a slow first grade costs
the person nothing on the countdown, the recorded time or the rating.

``mmss`` is how every screen and report writes a duration: ``1:05``, and
``1:02:05`` from an hour up. A time read from a file or a commit someone else
wrote is placed with ``in_utc`` / ``from_epoch`` (clamped to what a datetime
holds) and shown with ``minute_text`` (local, or UTC where the local zone
overflows), so no date anyone writes is fatal. Torch-free and import-light: the CLI loads it on
paths that never grade.
"""
from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone
from typing import Callable, Protocol

Now = Callable[[], datetime]  # a clock's `now` alone: the current time, zone-aware UTC


def utc_now() -> datetime:
    """The real wall clock: now, aware, in UTC (the `Now` of SystemClock)."""
    return datetime.now(timezone.utc)


class MonotonicClock(Protocol):
    """The part of a clock a countdown needs."""

    def monotonic(self) -> float: ...


class Clock(Protocol):
    def monotonic(self) -> float: ...

    def now(self) -> datetime: ...


class SystemClock:
    def monotonic(self) -> float:
        return time.monotonic()

    def now(self) -> datetime:
        return utc_now()


class FakeClock:
    """A clock tests move by hand."""

    def __init__(self, start: datetime | None = None, mono: float = 1000.0):
        self._mono = mono
        self._start = start or datetime(2026, 12, 1, 9, 0, tzinfo=timezone.utc)
        self._t0 = mono

    def monotonic(self) -> float:
        return self._mono

    def now(self) -> datetime:
        return self._start + timedelta(seconds=self._mono - self._t0)

    def advance(self, seconds: float) -> None:
        self._mono += seconds


class PersonClock:
    """The time a person is judged by: `base`'s, less the spans between `pause()` and
    `resume()` (the grader at work). `now()` stays the wall clock: records say when things
    happened. Pauses nest; `grading_seconds` is what they took out so far."""

    def __init__(self, base: Clock):
        self.base = base
        self._paused_total = 0.0
        self._paused_since: float | None = None
        self._depth = 0

    def monotonic(self) -> float:
        now = self.base.monotonic()
        return now - self._paused_total - (now - self._paused_since if self._paused_since is not None else 0.0)

    def now(self) -> datetime:
        return self.base.now()

    def pause(self) -> None:
        if self._depth == 0:
            self._paused_since = self.base.monotonic()
        self._depth += 1

    def resume(self) -> None:
        if self._depth == 0:
            return
        self._depth -= 1
        if self._depth == 0 and self._paused_since is not None:
            self._paused_total += self.base.monotonic() - self._paused_since
            self._paused_since = None

    @property
    def paused(self) -> bool:
        return self._depth > 0

    @property
    def grading_seconds(self) -> float:
        """Seconds taken out so far (a pause in progress counted up to now)."""
        running = self.base.monotonic() - self._paused_since if self._paused_since is not None else 0.0
        return self._paused_total + running


def person_clock(clock: Clock | None = None) -> PersonClock:
    """`clock` as a PersonClock (itself when it is one already; the system clock when None)."""
    if isinstance(clock, PersonClock):
        return clock
    return PersonClock(clock if clock is not None else SystemClock())


def mmss(seconds: float | None) -> str:
    """1:05 for 65 s, 1:02:05 from an hour up; negative times show as 0:00; an em dash for None."""
    if seconds is None:
        return "—"
    s = max(0, int(round(seconds)))
    return f"{s // 60}:{s % 60:02d}" if s < 3600 else f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


EARLIEST = datetime.min.replace(tzinfo=timezone.utc)
LATEST = datetime.max.replace(tzinfo=timezone.utc)


def in_utc(moment: datetime) -> datetime:
    """An aware time in UTC, clamped to what a datetime holds: a time written as 9999-12-31T23:00-05:00
    is 10000-01-01 in UTC, which no datetime holds, and becomes the last one (a team file's or a
    commit's date is anyone's to write; it is placed, never fatal)."""
    try:
        return moment.astimezone(timezone.utc)
    except (OverflowError, ValueError):
        offset = moment.utcoffset() or timedelta(0)
        return LATEST if offset < timedelta(0) else EARLIEST


def from_epoch(seconds: int) -> datetime:
    """A Unix time (git's %ct) in UTC, clamped to what a datetime holds (git takes any 64-bit date)."""
    try:
        return datetime.fromtimestamp(seconds, timezone.utc)
    except (OverflowError, ValueError, OSError):
        return LATEST if seconds > 0 else EARLIEST


def minute_text(moment: datetime) -> str:
    """A time to the minute in the local zone, `2026-12-01 18:30`; where the local zone cannot
    hold it (9999-12-31 23:00 UTC is year 10000 in Tokyo, 0001-01-01 00:00 UTC year 0 in New
    York), in UTC as it is, marked: `9999-12-31 23:00 UTC`. Never raises."""
    try:
        local = moment.astimezone()
        mark = ""
    except (OverflowError, ValueError, OSError):
        local, mark = in_utc(moment), " UTC"
    # written out: strftime's %Y gives "1", not "0001", for year 1 on glibc
    return f"{local.year:04d}-{local.month:02d}-{local.day:02d} {local.hour:02d}:{local.minute:02d}{mark}"
