"""The one answer to "what is due": which drills are due now, which come back later
today or tomorrow, and which new drills are still available today.

`drill`, `drill list --due`, `drill warmup` and `drill report` all read it, so at
any moment they agree. A drill is *due* when the due time the scheduler stored
for its card is at or before now; a drill due later today is not due yet (it is
listed as "later today", with its time). New drills follow the study plan, at
most the daily limit of first attempts per local day. Drills the catalogue no
longer has are left out everywhere, and so are drills on hold (trainer.store.control):
a suspended drill is neither due nor new until unsuspended; a buried one comes back
at the end of its burial (its due time is taken as that, when it was earlier).

`when(due, now)` words a due time by the local calendar ("in 5 minutes", "today
at 14:05", "tomorrow at 09:00", "in 3 days (Fri 04 Dec)"), so the REPL's "back
for review ..." and the warm-up's "due tomorrow" say what the store holds.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta, timezone, tzinfo
from typing import TYPE_CHECKING, Iterable, Mapping, Sequence

if TYPE_CHECKING:
    from trainer.schedule.plans import StudyPlan
    from trainer.store import DrillSummary, Store
    from trainer.store.control import Hold


@dataclass(frozen=True)
class Agenda:
    now: datetime  # aware, local
    due: tuple[str, ...]  # due at or before now, soonest first
    later_today: tuple[tuple[str, datetime], ...]  # due after now, before local midnight
    tomorrow: tuple[tuple[str, datetime], ...]  # due on the next local day
    new: tuple[str, ...]  # new drills still available today, in plan order
    new_limit: int
    introduced_today: int
    fresh: tuple[str, ...] = ()  # every never-attempted drill, in plan order (study more)
    upcoming: tuple[tuple[str, datetime], ...] = field(default=())  # every card not due yet, soonest first
    suspended: tuple[str, ...] = ()  # on hold until unsuspended
    buried: tuple[tuple[str, datetime], ...] = ()  # on hold until the given time

    @property
    def next_review(self) -> tuple[str, datetime] | None:
        return self.upcoming[0] if self.upcoming else None

    @property
    def nothing_left(self) -> bool:
        """Nothing due now and no new drill left for today."""
        return not self.due and not self.new

    def study_more(self, count: int) -> tuple[list[str], list[str]]:
        """Anki's "study more": (reviews ahead of time, new drills beyond today's limit),
        at most `count` drills together. New drills come first: reviewing early teaches
        little, meeting a new drill moves the plan on."""
        extra_new = [d for d in self.fresh if d not in self.new][:max(0, count)]
        ahead = [d for d, _ in self.upcoming if d not in extra_new][:max(0, count - len(extra_new))]
        return ahead, extra_new


def end_of_day(moment: datetime) -> datetime:
    """Local midnight after `moment` (an aware time)."""
    local = moment.astimezone(moment.tzinfo)
    return datetime.combine(local.date() + timedelta(days=1), time.min, local.tzinfo)


def build_agenda(cards: Iterable[tuple[str, datetime]], summaries: Mapping[str, DrillSummary], plan: StudyPlan,
                 limit: int, known: Iterable[str] | None, now: datetime,
                 held: Mapping[str, Hold] | None = None) -> Agenda:
    """The agenda at `now` (aware; its zone decides the calendar day) from every card's
    (drill, due), the store's drill summaries, the study plan and the daily new limit.
    `known` (the catalogue's ids) drops drills the catalogue lacks; None keeps all.
    `held` (the holds in force at `now`) keeps suspended drills out and buried ones
    out until their burial ends."""
    from trainer.schedule.plans import introduced_on, next_new_drills

    tz: tzinfo = now.tzinfo or timezone.utc
    held = held or {}
    known_list = list(known) if known is not None else None
    known_set = set(known_list) if known_list is not None else None
    suspended = tuple(sorted(d for d, h in held.items() if h.suspended and (known_set is None or d in known_set)))
    buried = tuple(sorted(((d, h.buried_until) for d, h in held.items() if not h.suspended
                           and h.buried_until is not None and (known_set is None or d in known_set)),
                          key=lambda x: (x[1], x[0])))
    until = dict(buried)
    dues = sorted(((max(due, until[drill]) if drill in until else due, drill) for drill, due in cards
                   if (known_set is None or drill in known_set) and drill not in suspended))
    if held:
        known_list = [d for d in (known_list if known_list is not None else plan.order) if d not in held]
    midnight = end_of_day(now)
    tomorrow_end = end_of_day(midnight)
    today: date = now.astimezone(tz).date()
    new = next_new_drills(plan, summaries, today, limit, known=known_list, tz=tz)
    fresh = next_new_drills(plan, summaries, today, 10**6, known=known_list, tz=tz)  # no daily limit
    return Agenda(
        now=now,
        due=tuple(d for t, d in dues if t <= now),
        later_today=tuple((d, t) for t, d in dues if now < t < midnight),
        tomorrow=tuple((d, t) for t, d in dues if midnight <= t < tomorrow_end),
        new=tuple(new),
        new_limit=limit,
        introduced_today=len(introduced_on(summaries, today, tz)),
        fresh=tuple(fresh),
        upcoming=tuple((d, t) for t, d in dues if t > now),
        suspended=suspended,
        buried=buried,
    )


def read_agenda(store: Store, known: Iterable[str] | None, now: datetime) -> Agenda:
    """The agenda from an open store (its public reads only). A stored plan this drill does not
    ship (a backup from a drill with more plans) is said once and the default plan used."""
    from trainer.schedule.plans import PlanError, load_plan
    from trainer.store import SETTING_DEFAULTS, notices

    settings = store.settings()
    try:
        plan = load_plan(settings.plan)
    except PlanError as exc:
        default = str(SETTING_DEFAULTS["plan"])
        notices.say(f"the stored setting plan cannot be used ({exc.message}); using the default "
                    f"{default!r} (`drill settings plan NAME` replaces it)")
        plan = load_plan(default)
    return build_agenda(((c.drill, c.due) for c in store.cards()), store.drill_summaries(),
                        plan, settings.daily_new_limit, known, now, store.held(now))


def agenda_now(known: Iterable[str] | None, now: datetime | None = None) -> Agenda:
    """The agenda from DRILL_HOME's store, without creating it (no database: every
    plan drill is new, the default limit applies). StoreError and PlanError pass up."""
    from trainer.schedule.plans import load_plan
    from trainer.clock import utc_now
    from trainer.store import SETTING_DEFAULTS, database_exists, open_store

    now = now if now is not None else utc_now().astimezone()
    if database_exists():
        with open_store() as store:
            return read_agenda(store, known, now)
    return build_agenda((), {}, load_plan(str(SETTING_DEFAULTS["plan"])),
                        int(SETTING_DEFAULTS["daily_new_limit"]), known, now)


def card_dues(store: Store, known: Iterable[str] | None = None) -> list[datetime]:
    """Every card's due time, for drills the catalogue knows (the report's due calendar);
    suspended drills left out, buried ones due at the end of their burial at the earliest."""
    keep = set(known) if known is not None else None
    held = store.holds()
    dues = []
    for c in store.cards():
        hold = held.get(c.drill)
        if (keep is not None and c.drill not in keep) or (hold is not None and hold.suspended):
            continue
        buried = hold.buried_until if hold is not None else None
        dues.append(max(c.due, buried) if buried is not None else c.due)
    return dues


# ---------------------------------------------------------------- words


def clock_time(moment: datetime, now: datetime) -> str:
    return moment.astimezone(now.tzinfo).strftime("%H:%M")


def when(due: datetime, now: datetime | None) -> str:
    """A due time in words, by the local calendar of `now`: 'now', 'in 5 minutes',
    'today at 14:05 (in 3 hours)', 'tomorrow at 09:00', 'in 3 days (Fri 04 Dec)'."""
    if now is None:
        return f"on {due.astimezone():%a %d %b}"
    if now.tzinfo is None:
        now = now.astimezone()
    tz = now.tzinfo
    delta = (due - now).total_seconds()
    if delta <= 30:
        return "now"
    if delta < 3600:
        minutes = max(1, int(round(delta / 60)))
        return f"in {minutes} minute{'s' if minutes != 1 else ''}"
    days = (due.astimezone(tz).date() - now.astimezone(tz).date()).days
    at = clock_time(due, now)
    if days == 0:
        hours = int(round(delta / 3600))
        return f"today at {at} (in {hours} hour{'s' if hours != 1 else ''})"
    if days == 1:
        return f"tomorrow at {at}"
    return f"in {days} days ({due.astimezone(tz):%a %d %b})"


def short_list(ids: Sequence[str], shown: int = 5) -> str:
    head = ", ".join(ids[:shown])
    return head + (f", +{len(ids) - shown} more" if len(ids) > shown else "")


def focus(agenda: Agenda, drills: Iterable[str]) -> Agenda:
    """The agenda narrowed to ``drills`` (one topic's, for `warmup --topic`): what is due of
    them, and as many of their new drills as today's remaining new-drill room allows."""
    from dataclasses import replace

    keep = set(drills)
    room = max(0, agenda.new_limit - agenda.introduced_today)
    fresh = tuple(d for d in agenda.fresh if d in keep)
    return replace(
        agenda,
        due=tuple(d for d in agenda.due if d in keep),
        later_today=tuple(x for x in agenda.later_today if x[0] in keep),
        tomorrow=tuple(x for x in agenda.tomorrow if x[0] in keep),
        new=fresh[:room],
        fresh=fresh,
        upcoming=tuple(x for x in agenda.upcoming if x[0] in keep),
    )
