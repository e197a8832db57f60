"""The no-argument status: drills due now, new drills for today, the streak and the next
suggested command.

Apart from the command modules so that the app's callback (trainer.cli.app) can use it
without importing a module that imports the app; torch-free, and it never creates the
database.
"""
from __future__ import annotations

from datetime import datetime, timezone

from trainer.catalogue_cache import load_catalogue
from trainer.clock import utc_now
from trainer.schedule.due import agenda_now, clock_time, short_list, when
from trainer.store import database_exists, open_store


def local_now() -> datetime:
    return utc_now().astimezone()


def status_lines(now: datetime) -> list[str]:
    """The status text for ``now`` (an aware local time); never creates the database.
    What is due comes from trainer.schedule.due, the one answer shared with list, warmup and report."""
    ids = catalogue_ids()
    agenda = agenda_now(ids, now)
    streak = 0
    has_progress = False
    passed = 0
    if database_exists():
        with open_store() as store:
            streak = store.streak(now.date(), now.tzinfo or timezone.utc)
            counts = store.counts()
            has_progress = bool(counts["attempts"] or counts["cards"])
            summaries = store.drill_summaries()
            passed = sum(1 for d in ids if d in summaries and summaries[d].passes > 0)
    due, new = list(agenda.due), list(agenda.new)
    held = [f"{len(agenda.suspended)} suspended" if agenda.suspended else "",
            f"{len(agenda.buried)} buried" if agenda.buried else ""]
    lines = [
        f"Overall: passed {passed}/{len(ids)}, {len(due)} due" + "".join(f", {h}" for h in held if h),
        f"Due now: {len(due)}" + (f" ({short_list(due)})" if due else ""),
        f"New today: {len(new)}" + (f" ({short_list(new)})" if new else ""),
        f"Streak: {streak} day{'s' if streak != 1 else ''}",
    ]
    if agenda.later_today:
        lines.insert(2, f"Later today: {len(agenda.later_today)} ("
                     + short_list([f"{d} at {clock_time(t, now)}" for d, t in agenda.later_today]) + ")")
    if not has_progress:
        lines.insert(0, "No progress recorded yet.")
    if due:
        suggestion = "drill warmup"
    elif new:
        suggestion = f"drill solve {new[0]}"
    else:
        if agenda.next_review is not None:
            drill, at = agenda.next_review
            lines.append(f"Next review: {drill} {when(at, now)}")
        suggestion = "drill warmup --more" if agenda.fresh or agenda.upcoming else "drill mock"
    lines.append(f"Next: {suggestion}")
    return lines


def catalogue_ids() -> list[str]:
    """The catalogue's ids, in catalogue order."""
    return list(load_catalogue().specs)
