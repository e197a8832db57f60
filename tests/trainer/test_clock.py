"""There is one clock and one mm:ss (trainer.clock); everything that shows a time uses it."""
from datetime import datetime, timedelta, timezone

from trainer import clock


def test_mmss_under_an_hour_is_minutes_and_seconds_and_over_an_hour_adds_hours():
    assert [clock.mmss(s) for s in (0, 5, 59.4, 65, 600, 3599)] == ["0:00", "0:05", "0:59", "1:05", "10:00", "59:59"]
    assert (clock.mmss(3600), clock.mmss(3725), clock.mmss(-12), clock.mmss(None)) == ("1:00:00", "1:02:05", "0:00", "—")


def test_every_mm_ss_is_the_one_in_trainer_clock():
    from pathlib import Path

    from trainer import reports
    from trainer.text import verdict

    assert verdict.mmss is reports.mmss is clock.mmss
    root = Path(clock.__file__).parent
    others = [p for p in root.rglob("*.py") if p.name != "clock.py" and "% 60:02d" in p.read_text()]
    assert others == [], f"a second mm:ss: {others}"


def test_the_timed_flows_share_the_clock_type():
    from trainer.practice import flows as sessions
    from trainer.team import run

    assert sessions.MonotonicClock is run.MonotonicClock is clock.MonotonicClock


def test_the_fake_clock_moves_both_readings_together():
    fake = clock.FakeClock(datetime(2026, 12, 1, 9, tzinfo=timezone.utc))
    start = fake.now()
    fake.advance(90)
    assert fake.monotonic() == 1090.0 and fake.now() - start == timedelta(seconds=90)


def test_the_persons_clock_stops_while_paused_and_pauses_nest():
    from trainer.clock import FakeClock, PersonClock, person_clock

    base = FakeClock(mono=100.0)
    clock = PersonClock(base)
    assert clock.monotonic() == 100.0 and clock.now() == base.now()
    base.advance(10)
    clock.pause()
    clock.pause()  # nested: one span
    base.advance(30)
    assert clock.monotonic() == 110.0 and clock.paused and clock.grading_seconds == 30
    clock.resume()
    base.advance(5)
    assert clock.monotonic() == 110.0  # still paused once
    clock.resume()
    clock.resume()  # one too many: no effect
    base.advance(2)
    assert clock.monotonic() == 112.0 and not clock.paused and clock.grading_seconds == 35
    assert clock.now() == base.now()  # the wall clock is never paused: records say when things happened
    assert person_clock(clock) is clock and isinstance(person_clock(base), PersonClock)
