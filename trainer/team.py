"""Team study sessions: the session file, the members' results files, and the board
merged from them. Pure: text in, records out; the CLI does the reading and writing.

A **session file** (YAML, written by `drill team new`) fixes what every member
does: the drills, the time limit and one seed, so every member is graded on
identical cases::

    format: 1
    title: Tuesday attention drills
    drills: [mha-padding, gqa]
    minutes: 30
    seed: 20261201

Its id (``TeamSession.id``) is a hash of drills, minutes and seed; every
results file carries it, so a results file from another session is told apart.

A **results file** (JSON, one per member, ``DIR/<safe name>.json``) is
untrusted input: ``parse_results`` checks its size, its JSON, every field's type
and range, and that every drill id is known, and raises ``ResultsError`` naming
the file otherwise::

    {"format": 1, "kind": "drill-team-results", "session": "<id>", "name": "Ada",
     "finished_at": "2026-12-01T18:30:00+00:00", "mode": "repl",
     "drills": [{"drill": "gqa", "status": "passed", "seconds": 312.5,
                 "attempts": 2, "hints": 0, "traps": ["no-scale"]}]}
"""
from __future__ import annotations

import hashlib
import json
import math
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Iterable, Protocol, Sequence

import yaml

SESSION_FORMAT = 1
RESULTS_FORMAT = 1
RESULTS_KIND = "drill-team-results"
MAX_RESULTS_BYTES = 64 * 1024
MAX_NAME = 64
MAX_DRILLS = 50
MAX_TRAPS = 20
MAX_MINUTES = 600
STATUSES = ("passed", "failed", "skipped", "quit", "timeout", "not reached")
MODES = ("repl", "files")
_TRAP_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
_SESSION_ID = re.compile(r"^[0-9a-f]{16}$")
_SAFE_CHARS = re.compile(r"[^A-Za-z0-9._-]+")


class TeamError(Exception):
    """A session file or option that cannot be used; ``problems`` lists every reason."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = list(problems)
        super().__init__("; ".join(self.problems))


class ResultsError(Exception):
    """A results file that is malformed or foreign; the message names the file."""

    def __init__(self, source: str, reason: str) -> None:
        self.source, self.reason = source, reason
        super().__init__(f"{source}: {reason}")


# ---------------------------------------------------------------- session


@dataclass(frozen=True)
class TeamSession:
    drills: tuple[str, ...]
    minutes: float
    seed: int
    title: str = ""

    @property
    def id(self) -> str:
        canon = json.dumps({"drills": list(self.drills), "minutes": float(self.minutes), "seed": self.seed},
                           sort_keys=True)
        return hashlib.sha256(canon.encode()).hexdigest()[:16]


def new_session(drills: Sequence[str], minutes: float, seed: int, known: Iterable[str], title: str = "") -> TeamSession:
    """A validated session; TeamError lists unknown or repeated ids and bad numbers."""
    known_set = set(known)
    problems = []
    ids = [d.strip() for d in drills if d.strip()]
    if not ids:
        problems.append("no drills given; list them with --drills ID,ID")
    from grader.spec import unknown_drill_message

    problems += [unknown_drill_message(d, sorted(known_set)) for d in ids if d not in known_set]
    repeated = sorted({d for d in ids if ids.count(d) > 1})
    if repeated:
        problems.append(f"drill{'s' if len(repeated) > 1 else ''} listed twice: {', '.join(repeated)}")
    if len(ids) > MAX_DRILLS:
        problems.append(f"{len(ids)} drills is too many for one session (at most {MAX_DRILLS})")
    if isinstance(minutes, bool) or not isinstance(minutes, (int, float)) or not math.isfinite(minutes) \
            or not 1 <= minutes <= MAX_MINUTES:
        problems.append(f"minutes must be a number from 1 to {MAX_MINUTES}, not {minutes!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        problems.append(f"seed must be a non-negative integer, not {seed!r}")
    if not isinstance(title, str) or len(title) > 200:
        problems.append("title must be text of at most 200 characters")
    if problems:
        raise TeamError(problems)
    return TeamSession(tuple(ids), float(minutes), int(seed), title)


def session_yaml(session: TeamSession) -> str:
    """The session file's text (stable: the same session always gives the same bytes)."""
    head = ("# A drill team study session: every member runs\n"
            "#   drill team run THIS_FILE --name YOUR_NAME --results SHARED_FOLDER\n"
            "# and `drill team board SHARED_FOLDER` shows the leaderboard.\n")
    body = {"format": SESSION_FORMAT}
    if session.title:
        body["title"] = session.title
    minutes = int(session.minutes) if float(session.minutes).is_integer() else session.minutes
    body.update({"drills": list(session.drills), "minutes": minutes, "seed": session.seed})
    return head + yaml.safe_dump(body, sort_keys=False, allow_unicode=True, default_flow_style=None)


def parse_session(text: str, known: Iterable[str], source: str = "the session file") -> TeamSession:
    """A session from its YAML text; TeamError names every problem."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise TeamError([f"{source} is not valid YAML ({exc})"]) from None
    if not isinstance(data, dict):
        raise TeamError([f"{source} is not a drill team session (expected a mapping with drills, minutes, seed)"])
    problems = []
    if data.get("format", SESSION_FORMAT) != SESSION_FORMAT:
        problems.append(f"{source} has format {data.get('format')!r}; this drill reads format {SESSION_FORMAT}")
    extra = sorted(set(map(str, data)) - {"format", "title", "drills", "minutes", "seed"})
    if extra:
        problems.append(f"{source} has unknown field{'s' if len(extra) > 1 else ''} {', '.join(extra)}")
    drills = data.get("drills")
    if not isinstance(drills, list) or not all(isinstance(d, str) for d in drills):
        problems.append(f"{source}: drills must be a list of drill ids")
        drills = []
    if problems:
        raise TeamError(problems)
    try:
        return new_session(drills, data.get("minutes", 30), data.get("seed"), known, data.get("title", "") or "")
    except TeamError as exc:
        raise TeamError([f"{source}: {p}" for p in exc.problems]) from None


# ---------------------------------------------------------------- results


@dataclass(frozen=True)
class DrillResult:
    drill: str
    status: str  # one of STATUSES
    seconds: float
    attempts: int = 0
    hints: int = 0
    traps: tuple[str, ...] = ()

    @property
    def solved(self) -> bool:
        return self.status == "passed"


@dataclass(frozen=True)
class MemberResult:
    name: str
    session: str
    finished_at: datetime
    mode: str
    drills: tuple[DrillResult, ...]
    source: str = ""  # the file it was read from (for the board)

    @property
    def solved(self) -> int:
        return sum(1 for d in self.drills if d.solved)

    @property
    def solved_seconds(self) -> float:
        return round(sum(d.seconds for d in self.drills if d.solved), 1)


def member_filename(name: str) -> str:
    """A safe file name for a member: letters, digits, `.`, `_` and `-` only, never hidden,
    at most 48 characters before the suffix. When the name had to change, a short hash of
    the original is added so that two different names never share a file."""
    slug = _SAFE_CHARS.sub("-", unicodedata.normalize("NFKC", name)).strip(".-_")[:48].strip(".-_")
    if slug != name or not slug:
        slug = (slug or "member") + "-" + hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return slug + ".json"


def check_name(name: str) -> str:
    """The member name, trimmed; ValueError when it is empty, too long or holds control characters."""
    name = name.strip()
    if not name:
        raise ValueError("the name is empty; pass --name YOUR_NAME")
    if len(name) > MAX_NAME:
        raise ValueError(f"the name is {len(name)} characters long; at most {MAX_NAME}")
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Cs") for ch in name):
        raise ValueError("the name holds control characters")
    return name


def member_result(session: TeamSession, name: str, done: Sequence[DrillResult], finished_at: datetime,
                  mode: str = "repl") -> MemberResult:
    """A member's results: every session drill, in session order; drills not run are 'not reached'."""
    by_drill = {d.drill: d for d in done}
    rows = tuple(by_drill.get(d, DrillResult(d, "not reached", 0.0)) for d in session.drills)
    return MemberResult(check_name(name), session.id, finished_at, mode, rows)


def results_json(result: MemberResult) -> str:
    return json.dumps({
        "format": RESULTS_FORMAT, "kind": RESULTS_KIND, "session": result.session, "name": result.name,
        "finished_at": result.finished_at.isoformat(), "mode": result.mode,
        "drills": [{"drill": d.drill, "status": d.status, "seconds": round(d.seconds, 1), "attempts": d.attempts,
                    "hints": d.hints, "traps": list(d.traps)} for d in result.drills],
    }, indent=2, ensure_ascii=False) + "\n"


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v: Any) -> bool:
    return (isinstance(v, (int, float)) and not isinstance(v, bool)) and math.isfinite(v)


def _drill_result(item: Any, i: int, known: set[str], source: str) -> DrillResult:
    where = f"drills[{i}]"
    if not isinstance(item, dict):
        raise ResultsError(source, f"{where} is not an object")
    extra = sorted(set(map(str, item)) - {"drill", "status", "seconds", "attempts", "hints", "traps"})
    if extra:
        raise ResultsError(source, f"{where} has unknown field {extra[0]!r}")
    drill, status = item.get("drill"), item.get("status")
    if not isinstance(drill, str) or drill not in known:
        raise ResultsError(source, f"{where}.drill is not a known drill id")
    if status not in STATUSES:
        raise ResultsError(source, f"{where}.status must be one of {', '.join(STATUSES)}")
    seconds = item.get("seconds")
    if not _is_number(seconds) or not 0 <= seconds <= 86400:
        raise ResultsError(source, f"{where}.seconds must be a number from 0 to 86400")
    attempts, hints = item.get("attempts", 0), item.get("hints", 0)
    if not _is_int(attempts) or not 0 <= attempts <= 10_000 or not _is_int(hints) or not 0 <= hints <= 1000:
        raise ResultsError(source, f"{where}.attempts and .hints must be small non-negative integers")
    traps = item.get("traps", [])
    if not isinstance(traps, list) or len(traps) > MAX_TRAPS or \
            not all(isinstance(t, str) and _TRAP_ID.match(t) for t in traps):
        raise ResultsError(source, f"{where}.traps must be a list of at most {MAX_TRAPS} trap ids")
    return DrillResult(drill, status, float(seconds), attempts, hints, tuple(traps))


def parse_results(raw: bytes, source: str, known: Iterable[str]) -> MemberResult:
    """A member's results from the bytes of a results file; ResultsError when malformed."""
    if len(raw) > MAX_RESULTS_BYTES:
        raise ResultsError(source, f"larger than {MAX_RESULTS_BYTES // 1024} KiB")
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ResultsError(source, "not UTF-8 text") from None
    except (ValueError, RecursionError) as exc:
        raise ResultsError(source, f"not valid JSON ({str(exc)[:80]})") from None
    if not isinstance(data, dict) or data.get("kind") != RESULTS_KIND:
        raise ResultsError(source, "not a drill team results file")
    if data.get("format") != RESULTS_FORMAT:
        raise ResultsError(source, f"results format {str(data.get('format'))[:20]!r} is not {RESULTS_FORMAT}")
    extra = sorted(set(map(str, data)) - {"format", "kind", "session", "name", "finished_at", "mode", "drills"})
    if extra:
        raise ResultsError(source, f"unknown field {extra[0][:40]!r}")
    session = data.get("session")
    if not isinstance(session, str) or not _SESSION_ID.match(session):
        raise ResultsError(source, "session must be a session id (16 hex digits)")
    name = data.get("name")
    if not isinstance(name, str):
        raise ResultsError(source, "name must be text")
    try:
        name = check_name(name)
    except ValueError as exc:
        raise ResultsError(source, f"bad name: {exc}") from None
    try:
        finished = datetime.fromisoformat(str(data.get("finished_at")))
        if finished.tzinfo is None:
            raise ValueError
    except ValueError:
        raise ResultsError(source, "finished_at must be an ISO-8601 time with a zone") from None
    if data.get("mode") not in MODES:
        raise ResultsError(source, f"mode must be one of {', '.join(MODES)}")
    drills = data.get("drills")
    if not isinstance(drills, list) or not drills or len(drills) > MAX_DRILLS:
        raise ResultsError(source, f"drills must be a list of 1 to {MAX_DRILLS} results")
    known_set = set(known)
    rows = tuple(_drill_result(item, i, known_set, source) for i, item in enumerate(drills))
    if len({r.drill for r in rows}) != len(rows):
        raise ResultsError(source, "a drill appears twice")
    return MemberResult(name, session, finished, data["mode"], rows, source)


# ---------------------------------------------------------------- the board


@dataclass(frozen=True)
class BoardRow:
    rank: int
    member: MemberResult

    def cell(self, drill: str) -> DrillResult | None:
        return next((d for d in self.member.drills if d.drill == drill), None)


@dataclass(frozen=True)
class DrillColumn:
    drill: str
    solved_by: int
    fastest: float | None
    fastest_names: tuple[str, ...]


@dataclass(frozen=True)
class TeamMistake:
    trap: str
    count: int  # times matched, all members together
    members: int  # how many members made it
    drills: tuple[str, ...]


@dataclass(frozen=True)
class Board:
    session: str | None
    drills: tuple[str, ...]
    rows: tuple[BoardRow, ...]
    columns: tuple[DrillColumn, ...]
    mistakes: tuple[TeamMistake, ...]
    modes: tuple[str, ...] = field(default=())


def choose_session(results: Sequence[MemberResult], wanted: str | None = None) -> str | None:
    """The session the board is about: ``wanted``, else the one most members ran (ties: the
    earliest finished)."""
    if wanted is not None or not results:
        return wanted
    counts = Counter(r.session for r in results)
    first = {}
    for r in sorted(results, key=lambda r: r.finished_at):
        first.setdefault(r.session, r.finished_at)
    return min(counts, key=lambda s: (-counts[s], first[s]))


def split_foreign(results: Sequence[MemberResult], session: str | None) -> tuple[list[MemberResult], list[MemberResult]]:
    """(results of ``session``, results of any other session)."""
    mine = [r for r in results if session is None or r.session == session]
    return mine, [r for r in results if r not in mine]


def build_board(results: Sequence[MemberResult], drills: Sequence[str] | None = None) -> Board:
    """Leaderboard of one session's results: most solved first, then least time on the solved
    drills, then name; members level on both share a rank."""
    order: list[str] = list(drills or [])
    for r in results:
        for d in r.drills:
            if d.drill not in order:
                order.append(d.drill)
    ranked = sorted(results, key=lambda r: (-r.solved, r.solved_seconds, r.name.casefold(), r.source))
    rows: list[BoardRow] = []
    for i, r in enumerate(ranked):
        prev = rows[-1] if rows else None
        same = prev is not None and (prev.member.solved, prev.member.solved_seconds) == (r.solved, r.solved_seconds)
        rows.append(BoardRow(prev.rank if same else i + 1, r))
    columns = []
    for drill in order:
        times = [(d.seconds, r.name) for r in results for d in r.drills if d.drill == drill and d.solved]
        fastest = min((t for t, _ in times), default=None)
        columns.append(DrillColumn(drill, len(times), fastest,
                                   tuple(sorted(n for t, n in times if t == fastest))))
    counts: Counter[str] = Counter()
    makers: dict[str, set[int]] = {}
    where: dict[str, list[str]] = {}
    for i, r in enumerate(results):
        for d in r.drills:
            for trap in d.traps:
                counts[trap] += 1
                makers.setdefault(trap, set()).add(i)
                if d.drill not in where.setdefault(trap, []):
                    where[trap].append(d.drill)
    mistakes = sorted((TeamMistake(t, n, len(makers[t]), tuple(where[t])) for t, n in counts.items()),
                      key=lambda m: (-m.members, -m.count, m.trap))
    session = results[0].session if results else None
    return Board(session, tuple(order), tuple(rows), tuple(columns), tuple(mistakes),
                 tuple(sorted({r.mode for r in results})))


# ---------------------------------------------------------------- the run


class MonotonicClock(Protocol):
    def monotonic(self) -> float: ...


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

    def result(self, name: str, finished_at: datetime, mode: str = "repl") -> MemberResult:
        return member_result(self.session, name, self.done, finished_at, mode)


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

