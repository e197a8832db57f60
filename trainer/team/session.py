"""The team session file: what every member does (drills, minutes, one seed), its
YAML text, and reading it back. ``TeamError`` lists every problem found.

    format: 1
    title: Tuesday attention drills
    drills: [mha-padding, gqa]
    minutes: 30
    seed: 20261201

Its id (``TeamSession.id``) is a hash of drills, minutes and seed; every results
file carries it, so a results file from another session is told apart.
"""
from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Sequence, TypeGuard

import yaml

from grader.errors import UsageError, cut
from grader.spec import safe_yaml
from grader.spec.variants import AXIS_RE, VALUE_RE

SESSION_FORMAT = 1
MAX_DRILLS = 50
MAX_MINUTES = 600
MAX_VARIANT_AXES = 8  # per drill: the built-in drills have at most 3


class TeamError(UsageError):
    """A session file or option that cannot be used; ``problems`` lists every reason."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = list(problems)
        super().__init__(self.problems, text="; ".join(self.problems))


def is_int(v: Any) -> TypeGuard[int]:
    """An int that is not a bool (True is an int to Python, not to a file format)."""
    return isinstance(v, int) and not isinstance(v, bool)


def is_number(v: Any) -> TypeGuard[int | float]:
    """A finite int or float, not a bool."""
    # an int is finite (math.isfinite would overflow on a 400-digit one)
    return (isinstance(v, (int, float)) and not isinstance(v, bool)) and (isinstance(v, int) or math.isfinite(v))


MAX_MEMBERS = 200


@dataclass(frozen=True)
class TeamSession:
    drills: tuple[str, ...]
    minutes: float
    seed: int
    title: str = ""
    members: tuple[str, ...] = ()  # who should submit (`drill team status`); not part of the id
    variants: dict[str, dict[str, str]] = field(default_factory=dict)  # drill -> its fixed non-default choices

    @property
    def id(self) -> str:
        body: dict[str, Any] = {"drills": list(self.drills), "minutes": float(self.minutes), "seed": self.seed}
        if self.variants:  # a session without variants keeps the id it always had
            body["variants"] = self.variants
        canon = json.dumps(body, sort_keys=True)
        return hashlib.sha256(canon.encode()).hexdigest()[:16]

    def variant(self, drill: str) -> dict[str, str]:
        """The variant every member gets for `drill` ({}: the contract as written)."""
        return dict(self.variants.get(drill, {}))


def new_session(drills: Sequence[str], minutes: Any, seed: Any, known: Iterable[str], title: str = "",
                variants: Any = None) -> TeamSession:
    """A validated session; TeamError lists unknown or repeated ids and bad numbers.
    `minutes` and `seed` are checked here, so a session file's values (anything YAML holds) come as they are.
    `variants` (drill -> {axis: value}) fixes a variant per drill; when `known` maps ids to specs,
    each axis and value is checked against the drill's (grader.spec.variants)."""
    known_set = set(known)
    problems = []
    ids = [d.strip() for d in drills if d.strip()]
    if not ids:
        problems.append("no drills given; list them with --drills ID,ID")
    from grader.errors import unknown_drill_message

    problems += [unknown_drill_message(d, sorted(known_set)) for d in ids if d not in known_set]
    repeated = sorted({d for d in ids if ids.count(d) > 1})
    if repeated:
        problems.append(f"drill{'s' if len(repeated) > 1 else ''} listed twice: {', '.join(repeated)}")
    if len(ids) > MAX_DRILLS:
        problems.append(f"{len(ids)} drills is too many for one session (at most {MAX_DRILLS})")
    if not is_number(minutes) or not 1 <= minutes <= MAX_MINUTES:
        problems.append(f"minutes must be a number from 1 to {MAX_MINUTES}, not {minutes!r:.40}")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        problems.append(f"seed must be a non-negative integer, not {seed!r:.40}")
    if not isinstance(title, str) or len(title) > 200:
        problems.append("title must be text of at most 200 characters")
    fixed = _variants(variants or {}, ids, known, problems)
    if problems:
        raise TeamError(problems)
    return TeamSession(tuple(ids), float(minutes), int(seed), title, variants=fixed)


def _variants(raw: Any, ids: list[str], known: Any, problems: list[str]) -> dict[str, dict[str, str]]:
    """drill -> its non-default choices, in the session's drill order."""
    from grader.errors import UsageError as _Usage

    if not isinstance(raw, dict) or not all(isinstance(v, dict) for v in raw.values()):
        problems.append("variants must map drill ids to {axis: value}")
        return {}
    out: dict[str, dict[str, str]] = {}
    for drill, choice in raw.items():
        if drill not in ids:
            problems.append(f"variants: {cut(drill)!r} is not one of the session's drills")
            continue
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in choice.items()):
            problems.append(f"variants.{drill}: each axis and value is text")
            continue
        if len(choice) > MAX_VARIANT_AXES:
            problems.append(f"variants.{drill}: {len(choice)} axes; a drill has at most {MAX_VARIANT_AXES}")
            continue
        bad = next((f"axis {cut(k)!r}" if not (len(k) <= 40 and AXIS_RE.fullmatch(k))
                    else f"value {cut(v)!r} of {k}" for k, v in choice.items()
                    if not (len(k) <= 40 and AXIS_RE.fullmatch(k) and len(v) <= 40 and VALUE_RE.fullmatch(v))), None)
        if bad is not None:  # before any spec sees it: an escape sequence, a 100 KB name
            problems.append(f"variants.{drill}: {bad} is not a variant name (lower-case letters, digits, - and _)")
            continue
        spec = known.get(drill) if isinstance(known, dict) else None
        if spec is not None and hasattr(spec, "under"):
            try:
                choice = dict(spec.under(choice).variant)
            except _Usage as exc:
                problems.append(f"variants.{drill}: {exc}")
                continue
        if choice:
            out[drill] = dict(choice)
    return {d: out[d] for d in ids if d in out}


def session_yaml(session: TeamSession) -> str:
    """The session file's text (stable: the same session always gives the same bytes)."""
    head = ("# A drill team study session: every member runs\n"
            "#   drill team run THIS_FILE --name YOUR_NAME --results SHARED_FOLDER\n"
            "# and `drill team board SHARED_FOLDER` shows the leaderboard.\n")
    body: dict[str, Any] = {"format": SESSION_FORMAT}
    if session.title:
        body["title"] = session.title
    minutes = int(session.minutes) if float(session.minutes).is_integer() else session.minutes
    body.update({"drills": list(session.drills), "minutes": minutes, "seed": session.seed})
    if session.variants:
        body["variants"] = {d: dict(v) for d, v in session.variants.items()}
    if session.members:
        body["members"] = list(session.members)
    return head + yaml.safe_dump(body, sort_keys=False, allow_unicode=True, default_flow_style=None)


def parse_session(text: str, known: Iterable[str], source: str = "the session file") -> TeamSession:
    """A session from its YAML text; TeamError names every problem."""
    try:
        data = safe_yaml.load(text)
    except yaml.YAMLError as exc:
        line, problem = safe_yaml.problem_line(exc, text)
        raise TeamError([f"{source}:{line}: not a valid session file: {problem}"]) from None
    if not isinstance(data, dict):
        raise TeamError([f"{source} is not a drill team session (expected a mapping with drills, minutes, seed)"])
    problems = []
    if data.get("format", SESSION_FORMAT) != SESSION_FORMAT:
        problems.append(f"{source} has format {data.get('format')!r}; this drill reads format {SESSION_FORMAT}")
    extra = sorted(set(map(str, data)) - {"format", "title", "drills", "minutes", "seed", "members", "variants"})
    if extra:
        problems.append(f"{source} has unknown field{'s' if len(extra) > 1 else ''} "
                        f"{', '.join(repr(k[:40]) for k in extra[:5])}")
    drills = data.get("drills")
    if not isinstance(drills, list) or not all(isinstance(d, str) for d in drills):
        problems.append(f"{source}: drills must be a list of drill ids")
        drills = []
    members = data.get("members", []) or []
    if (not isinstance(members, list) or len(members) > MAX_MEMBERS
            or not all(isinstance(m, str) and m.strip() and len(m) <= 64 for m in members)):
        problems.append(f"{source}: members must be a list of at most {MAX_MEMBERS} names (each 1 to 64 characters)")
        members = []
    if problems:
        raise TeamError(problems)
    try:
        session = new_session(drills, data.get("minutes", 30), data.get("seed"), known, data.get("title", "") or "",
                              data.get("variants"))
    except TeamError as exc:
        raise TeamError([f"{source}: {p}" for p in exc.problems]) from None
    return replace(session, members=tuple(dict.fromkeys(m.strip() for m in members)))


def parse_file_options(pairs: Sequence[str], session: TeamSession) -> dict[str, str]:
    """`--file ID=PATH` options as {drill: path}; TeamError for a bad pair or a drill not in the session."""
    out: dict[str, str] = {}
    problems = []
    for pair in pairs:
        drill, sep, path = pair.partition("=")
        drill, path = drill.strip(), path.strip()
        if not sep or not drill or not path:
            problems.append(f"--file {pair!r} is not ID=PATH")
        elif drill not in session.drills:
            problems.append(f"--file {drill}: that drill is not in this session ({', '.join(session.drills)})")
        elif drill in out:
            problems.append(f"--file {drill} given twice")
        else:
            out[drill] = path
    if problems:
        raise TeamError(problems)
    return out
