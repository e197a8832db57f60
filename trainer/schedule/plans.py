"""Study plans: an ordered path through the drills, shipped in ``data/plans/*.yaml``
(the ``drill_data`` package), and the choice of which new drills to introduce today.

A plan lists weeks; each week has a focus and the drill ids it introduces, in
order. A week marked ``repeat: all`` introduces nothing new: from then on the
whole set is reviewed as FSRS schedules it. New drills are taken in plan order,
at most ``daily_new_limit`` first attempts per day; drills the catalogue knows
but the plan does not (user-authored drills from DRILL_PATH) come last.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timezone, tzinfo
from importlib.resources import files
from typing import Any, Iterable, Mapping, Protocol

import yaml

from grader.errors import DrillError


_PLAN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")


class PlanError(DrillError):
    """A plan file that cannot be used; the message names the plan and the problem."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class _Summary(Protocol):  # what next_new_drills needs of trainer.store.DrillSummary
    @property
    def first_attempt(self) -> datetime | None: ...


@dataclass(frozen=True)
class PlanWeek:
    number: int
    focus: str
    drills: tuple[str, ...]
    repeat_all: bool = False


@dataclass(frozen=True)
class StudyPlan:
    name: str
    description: str
    weeks: tuple[PlanWeek, ...]
    repeat_from_week: int

    @property
    def order(self) -> tuple[str, ...]:
        """Every drill id of the plan, in the order it is introduced."""
        return tuple(d for week in self.weeks for d in week.drills)

    def week_of(self, drill: str) -> int | None:
        for week in self.weeks:
            if drill in week.drills:
                return week.number
        return None


def available_plans() -> list[str]:
    folder = files("drill_data") / "plans"
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".yaml"))


def load_plan(name: str = "default") -> StudyPlan:
    """The plan ``data/plans/<name>.yaml``; PlanError when missing or malformed. ``name`` is a
    name (letters, digits, ``-`` and ``_``), never a path: a stored setting cannot make drill
    read any other file."""
    if not isinstance(name, str) or not _PLAN_NAME.fullmatch(name):
        shown = repr(name) if len(repr(name)) <= 60 else f"{repr(name)[:50]}... ({len(str(name))} characters)"
        raise PlanError(f"no study plan named {shown}: a plan is named by one of drill's own "
                        f"plans, never a path; available: {', '.join(available_plans())}")
    resource = files("drill_data") / "plans" / f"{name}.yaml"
    if not resource.is_file():
        raise PlanError(f"no study plan named {name!r}; available: {', '.join(available_plans())}")
    try:
        raw = yaml.safe_load(resource.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise PlanError(f"study plan {name!r} is not valid YAML: {exc}") from exc
    return parse_plan(raw, name)


def parse_plan(raw: Any, name: str) -> StudyPlan:
    problems: list[str] = []
    if not isinstance(raw, dict) or not isinstance(raw.get("weeks"), list):
        raise PlanError(f"study plan {name!r} must be a mapping with a list of weeks")
    weeks: list[PlanWeek] = []
    seen: set[str] = set()
    for i, w in enumerate(raw["weeks"]):
        if not isinstance(w, dict) or not isinstance(w.get("week"), int):
            problems.append(f"weeks[{i}] needs a week number")
            continue
        drills = w.get("drills") or []
        if not isinstance(drills, list) or not all(isinstance(d, str) for d in drills):
            problems.append(f"weeks[{i}].drills must be a list of drill ids")
            continue
        for d in drills:
            if d in seen:
                problems.append(f"weeks[{i}] repeats drill {d!r}")
            seen.add(d)
        weeks.append(PlanWeek(w["week"], str(w.get("focus", "")), tuple(drills), w.get("repeat") == "all"))
    if problems:
        raise PlanError(f"study plan {name!r}: " + "; ".join(problems))
    repeat = raw.get("repeat_from_week", max((w.number for w in weeks if w.repeat_all), default=0))
    return StudyPlan(str(raw.get("name", name)), str(raw.get("description", "")), tuple(weeks), int(repeat))


def introduced_on(summaries: Mapping[str, _Summary], day: date, tz: tzinfo = timezone.utc) -> list[str]:
    """Drills whose first attempt fell on ``day`` (in ``tz``)."""
    return sorted(d for d, s in summaries.items()
                  if s.first_attempt is not None and s.first_attempt.astimezone(tz).date() == day)


def next_new_drills(
    plan: StudyPlan,
    summaries: Mapping[str, _Summary],
    today: date,
    limit: int,
    *,
    known: Iterable[str] | None = None,
    tz: tzinfo = timezone.utc,
) -> list[str]:
    """The new drills to introduce today, in plan order: never-attempted drills, at most
    ``limit`` minus the drills already introduced today. ``known`` (the catalogue's ids)
    drops plan ids the catalogue lacks and appends catalogue ids the plan lacks."""
    room = max(0, limit - len(introduced_on(summaries, today, tz)))
    order = list(plan.order)
    if known is not None:
        known_list = list(known)
        known_set = set(known_list)
        order = [d for d in order if d in known_set] + [d for d in known_list if d not in set(order)]
    fresh = [d for d in order if d not in summaries or summaries[d].first_attempt is None]
    return fresh[:room]
