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

A **results file** (JSON, one per member, ``DIR/<safe name>.json``) holds every
run the member made of the session, oldest first: a re-run adds a run and keeps
the earlier ones. Each run records the grader's version and, per drill, a hash
of the cases it was graded on (``grader.case_hash``), so the board can tell a
run graded on other cases from the rest. A run made with ``--file`` grades
files after the fact: it is untimed, and its ``seconds`` are null::

    {"format": 2, "kind": "drill-team-results", "session": "<id>", "name": "Ada",
     "runs": [{"finished_at": "2026-12-01T18:30:00+00:00", "mode": "repl",
               "grader": "drill 0.1.0",
               "drills": [{"drill": "gqa", "status": "passed", "seconds": 312.5,
                           "attempts": 2, "hints": 0, "traps": ["no-scale"],
                           "cases": "3f9a0c1d2e4b5a69"}]}]}

The file is untrusted input: ``parse_results`` checks its size, its JSON, every
field's type and range, and that every drill id is known, and raises
``ResultsError`` naming the file otherwise.
"""
from __future__ import annotations

import hashlib
import json
import math
import re
import unicodedata
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Iterable, Mapping, Sequence

import yaml

from grader import safe_yaml
from trainer.timed_queue import MonotonicClock, TimedQueue

SESSION_FORMAT = 1
RESULTS_FORMAT = 2
RESULTS_KIND = "drill-team-results"
MAX_RESULTS_BYTES = 256 * 1024
MAX_RUNS = 20
MAX_NAME = 64
MAX_DRILLS = 50
MAX_TRAPS = 20
MAX_MINUTES = 600
STATUSES = ("passed", "failed", "skipped", "quit", "timeout", "not reached")
MODES = ("repl", "files")
_TRAP_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_SESSION_ID = re.compile(r"[0-9a-f]{16}")  # always fullmatch
_CASES_ID = re.compile(r"[0-9a-f]{16}")
_GRADER = re.compile(r"[A-Za-z0-9][A-Za-z0-9 ._+-]{0,39}")
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
    if not _is_number(minutes) or not 1 <= minutes <= MAX_MINUTES:
        problems.append(f"minutes must be a number from 1 to {MAX_MINUTES}, not {minutes!r:.40}")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        problems.append(f"seed must be a non-negative integer, not {seed!r:.40}")
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
        data = safe_yaml.load(text)
    except yaml.YAMLError as exc:
        line, problem = safe_yaml.problem_line(exc, text)
        raise TeamError([f"{source}:{line}: not a valid session file: {problem}"]) from None
    if not isinstance(data, dict):
        raise TeamError([f"{source} is not a drill team session (expected a mapping with drills, minutes, seed)"])
    problems = []
    if data.get("format", SESSION_FORMAT) != SESSION_FORMAT:
        problems.append(f"{source} has format {data.get('format')!r}; this drill reads format {SESSION_FORMAT}")
    extra = sorted(set(map(str, data)) - {"format", "title", "drills", "minutes", "seed"})
    if extra:
        problems.append(f"{source} has unknown field{'s' if len(extra) > 1 else ''} "
                        f"{', '.join(repr(k[:40]) for k in extra[:5])}")
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


def grader_version() -> str:
    """The version of drill that graded a run (grader and catalogue ship together)."""
    from trainer import __version__

    return f"drill {__version__}"


@dataclass(frozen=True)
class DrillResult:
    drill: str
    status: str  # one of STATUSES
    seconds: float | None  # the solving time; None when untimed (a file graded after the fact)
    attempts: int = 0
    hints: int = 0
    traps: tuple[str, ...] = ()
    cases: str | None = None  # the hash of the cases it was graded on; None when never graded

    @property
    def solved(self) -> bool:
        return self.status == "passed"

    @property
    def timed(self) -> bool:
        return self.seconds is not None


@dataclass(frozen=True)
class Run:
    """One pass through the session by one member."""

    finished_at: datetime
    mode: str  # "repl" (timed) or "files" (graded after the fact: untimed)
    grader: str
    drills: tuple[DrillResult, ...]

    @property
    def timed(self) -> bool:
        return self.mode == "repl"

    @property
    def solved(self) -> int:
        return sum(1 for d in self.drills if d.solved)

    @property
    def solved_seconds(self) -> float | None:
        """Time on the solved drills; None for an untimed run or when nothing was solved."""
        if not self.timed or not self.solved:
            return None
        return round(sum(d.seconds or 0.0 for d in self.drills if d.solved), 1)

    def cell(self, drill: str) -> DrillResult | None:
        return next((d for d in self.drills if d.drill == drill), None)


def run_key(run: Run) -> tuple[int, int, float]:
    """How runs rank: most solved first; at equal solved every timed run before every
    untimed one; timed runs by least time on the solved drills."""
    return (-run.solved, 0 if run.timed else 1, run.solved_seconds or 0.0)


@dataclass(frozen=True)
class MemberResult:
    """A member's results file: every run they made of one session, oldest first."""

    name: str
    session: str
    runs: tuple[Run, ...]
    source: str = ""  # the file it was read from (for the board)

    @property
    def latest(self) -> Run:
        return self.runs[-1]


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


def session_run(session: TeamSession, done: Sequence[DrillResult], finished_at: datetime, mode: str = "repl",
                grader: str | None = None) -> Run:
    """One run: every session drill, in session order; drills not run are 'not reached'
    (untimed in a files run, where nothing is timed)."""
    by_drill = {d.drill: d for d in done}
    idle = 0.0 if mode == "repl" else None
    rows = tuple(by_drill.get(d, DrillResult(d, "not reached", idle)) for d in session.drills)
    return Run(finished_at, mode, grader or grader_version(), rows)


def add_run(earlier: MemberResult | None, session: TeamSession, name: str, run: Run) -> MemberResult:
    """The member's file with ``run`` after the runs it already holds (a re-run keeps them)."""
    runs = earlier.runs if earlier is not None else ()
    return MemberResult(check_name(name), session.id, runs + (run,))


def results_json(result: MemberResult) -> str:
    return json.dumps({
        "format": RESULTS_FORMAT, "kind": RESULTS_KIND, "session": result.session, "name": result.name,
        "runs": [{
            "finished_at": run.finished_at.isoformat(), "mode": run.mode, "grader": run.grader,
            "drills": [{"drill": d.drill, "status": d.status,
                        "seconds": None if d.seconds is None else round(d.seconds, 1),
                        "attempts": d.attempts, "hints": d.hints, "traps": list(d.traps), "cases": d.cases}
                       for d in run.drills]} for run in result.runs],
    }, indent=2, ensure_ascii=False) + "\n"


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v: Any) -> bool:
    # an int is finite (math.isfinite would overflow on a 400-digit one)
    return (isinstance(v, (int, float)) and not isinstance(v, bool)) and (isinstance(v, int) or math.isfinite(v))


def _drill_result(item: Any, where: str, mode: str, known: set[str], source: str) -> DrillResult:
    if not isinstance(item, dict):
        raise ResultsError(source, f"{where} is not an object")
    extra = sorted(set(map(str, item)) - {"drill", "status", "seconds", "attempts", "hints", "traps", "cases"})
    if extra:
        raise ResultsError(source, f"{where} has unknown field {extra[0][:40]!r}")
    drill, status = item.get("drill"), item.get("status")
    if not isinstance(drill, str) or drill not in known:
        raise ResultsError(source, f"{where}.drill is not a known drill id")
    if status not in STATUSES:
        raise ResultsError(source, f"{where}.status must be one of {', '.join(STATUSES)}")
    seconds = item.get("seconds")
    if mode == "files":
        if seconds is not None:
            raise ResultsError(source, f"{where}.seconds must be null: a files run is not timed")
    elif not _is_number(seconds) or not 0 <= seconds <= 86400:
        raise ResultsError(source, f"{where}.seconds must be a number from 0 to 86400")
    attempts, hints = item.get("attempts", 0), item.get("hints", 0)
    if not _is_int(attempts) or not 0 <= attempts <= 10_000 or not _is_int(hints) or not 0 <= hints <= 1000:
        raise ResultsError(source, f"{where}.attempts and .hints must be small non-negative integers")
    traps = item.get("traps", [])
    if not isinstance(traps, list) or len(traps) > MAX_TRAPS or \
            not all(isinstance(t, str) and _TRAP_ID.fullmatch(t) for t in traps):
        raise ResultsError(source, f"{where}.traps must be a list of at most {MAX_TRAPS} trap ids")
    cases = item.get("cases")
    if cases is not None and not (isinstance(cases, str) and _CASES_ID.fullmatch(cases)):
        raise ResultsError(source, f"{where}.cases must be a case hash (16 hex digits) or null")
    return DrillResult(drill, status, None if seconds is None else float(seconds), attempts, hints,
                       tuple(traps), cases)


def _run(item: Any, i: int, known: set[str], source: str) -> Run:
    where = f"runs[{i}]"
    if not isinstance(item, dict):
        raise ResultsError(source, f"{where} is not an object")
    extra = sorted(set(map(str, item)) - {"finished_at", "mode", "grader", "drills"})
    if extra:
        raise ResultsError(source, f"{where} has unknown field {extra[0][:40]!r}")
    try:
        finished = datetime.fromisoformat(str(item.get("finished_at"))[:64])
        if finished.tzinfo is None:
            raise ValueError
        finished = finished.astimezone(timezone.utc)  # a time that cannot be placed in UTC is refused
    except (ValueError, OverflowError):
        raise ResultsError(source, f"{where}.finished_at must be an ISO-8601 time with a zone") from None
    mode = item.get("mode")
    if mode not in MODES:
        raise ResultsError(source, f"{where}.mode must be one of {', '.join(MODES)}")
    grader = item.get("grader")
    if not isinstance(grader, str) or not _GRADER.fullmatch(grader):
        raise ResultsError(source, f"{where}.grader must name the grader's version, such as 'drill 0.1.0'")
    drills = item.get("drills")
    if not isinstance(drills, list) or not drills or len(drills) > MAX_DRILLS:
        raise ResultsError(source, f"{where}.drills must be a list of 1 to {MAX_DRILLS} results")
    rows = tuple(_drill_result(d, f"{where}.drills[{j}]", mode, known, source) for j, d in enumerate(drills))
    if len({r.drill for r in rows}) != len(rows):
        raise ResultsError(source, f"{where}: a drill appears twice")
    return Run(finished, mode, grader, rows)


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
    if data.get("format") == 1:
        raise ResultsError(source, "written by an older drill (results format 1, which records no case "
                                   "hashes); its member can run the session again")
    if data.get("format") != RESULTS_FORMAT:
        raise ResultsError(source, f"results format {str(data.get('format'))[:20]!r} is not {RESULTS_FORMAT}")
    extra = sorted(set(map(str, data)) - {"format", "kind", "session", "name", "runs"})
    if extra:
        raise ResultsError(source, f"unknown field {extra[0][:40]!r}")
    session = data.get("session")
    if not isinstance(session, str) or not _SESSION_ID.fullmatch(session):
        raise ResultsError(source, "session must be a session id (16 hex digits)")
    name = data.get("name")
    if not isinstance(name, str):
        raise ResultsError(source, "name must be text")
    try:
        name = check_name(name)
    except ValueError as exc:
        raise ResultsError(source, f"bad name: {exc}") from None
    runs = data.get("runs")
    if not isinstance(runs, list) or not runs or len(runs) > MAX_RUNS:
        raise ResultsError(source, f"runs must be a list of 1 to {MAX_RUNS} runs")
    known_set = set(known)
    return MemberResult(name, session, tuple(_run(r, i, known_set, source) for i, r in enumerate(runs)), source)


# ---------------------------------------------------------------- the board


@dataclass(frozen=True)
class BoardRow:
    rank: int
    member: MemberResult
    run: Run  # the member's best run that can be trusted
    flagged_runs: int = 0  # the member's runs left out (graded on other cases)

    @property
    def runs(self) -> int:
        return len(self.member.runs)

    def cell(self, drill: str) -> DrillResult | None:
        return self.run.cell(drill)


@dataclass(frozen=True)
class Flag:
    """A results file on the board's folder that is not ranked, and why."""

    name: str
    source: str
    reason: str


@dataclass(frozen=True)
class DrillColumn:
    drill: str
    solved_by: int
    fastest: float | None  # timed passes only
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
    flagged: tuple[Flag, ...] = ()
    untimed: bool = False  # some ranked run is untimed


def choose_session(results: Sequence[MemberResult], wanted: str | None = None) -> str | None:
    """The session the board is about: ``wanted``, else the one most members ran (ties: the
    earliest finished)."""
    if wanted is not None or not results:
        return wanted
    counts = Counter(r.session for r in results)
    first: dict[str, datetime] = {}
    for r in sorted(results, key=lambda r: min(run.finished_at for run in r.runs)):
        first.setdefault(r.session, min(run.finished_at for run in r.runs))
    return min(counts, key=lambda s: (-counts[s], first[s]))


def split_foreign(results: Sequence[MemberResult], session: str | None) -> tuple[list[MemberResult], list[MemberResult]]:
    """(results of ``session``, results of any other session)."""
    mine = [r for r in results if session is None or r.session == session]
    return mine, [r for r in results if r not in mine]


def reference_cases(results: Sequence[MemberResult]) -> dict[str, tuple[str, str]]:
    """Per drill, the case hash most members were graded on, with the grader that made it
    (ties: the hash of the earliest run). The board measures every run against it."""
    members: dict[str, Counter[str]] = defaultdict(Counter)
    first: dict[tuple[str, str], tuple[datetime, str]] = {}
    for r in results:
        seen: set[tuple[str, str]] = set()
        for run in r.runs:
            for d in run.drills:
                if d.cases is None:
                    continue
                key = (d.drill, d.cases)
                if key not in seen:
                    seen.add(key)
                    members[d.drill][d.cases] += 1
                if key not in first or run.finished_at < first[key][0]:
                    first[key] = (run.finished_at, run.grader)
    out = {}
    for drill, counts in members.items():
        best = min(counts, key=lambda h: (-counts[h], first[(drill, h)][0], h))
        out[drill] = (best, first[(drill, best)][1])
    return out


def run_problem(run: Run, reference: Mapping[str, tuple[str, str]]) -> str | None:
    """Why a run cannot be ranked with the others, or None: a drill graded on other cases
    than most members' (another catalogue or grader), or a pass with no record of its cases."""
    for d in run.drills:
        ref = reference.get(d.drill)
        if d.cases is not None and ref is not None and d.cases != ref[0]:
            versions = f"; graded by {run.grader}, most members by {ref[1]}" if run.grader != ref[1] else ""
            return f"{d.drill} was graded on other cases than most members' (case hash {d.cases}, " \
                   f"not {ref[0]}{versions})"
        if d.solved and d.cases is None:
            return f"{d.drill} has no record of the cases it was graded on"
    return None


def build_board(results: Sequence[MemberResult], drills: Sequence[str] | None = None,
                flagged: Sequence[Flag] = ()) -> Board:
    """Leaderboard of one session's results. Each member is ranked by their best run that
    can be trusted (see ``run_key``; members level on it share a rank); a member whose every
    run was graded on other cases is flagged instead, as are the ``flagged`` files the caller
    found (another session, a drill not in the session)."""
    order: list[str] = list(drills or [])
    for r in results:
        for run in r.runs:
            for d in run.drills:
                if d.drill not in order:
                    order.append(d.drill)
    reference = reference_cases(results)
    entries: list[tuple[MemberResult, Run, int]] = []
    flags = list(flagged)
    for r in results:
        problems = [run_problem(run, reference) for run in r.runs]
        good = [run for run, p in zip(r.runs, problems) if p is None]
        if not good:
            flags.append(Flag(r.name, r.source, next(p for p in reversed(problems) if p)))
            continue
        entries.append((r, min(good, key=lambda run: (run_key(run), run.finished_at)), len(r.runs) - len(good)))
    entries.sort(key=lambda e: (run_key(e[1]), e[0].name.casefold(), e[0].source))
    rows: list[BoardRow] = []
    for i, (member, run, bad) in enumerate(entries):
        prev = rows[-1] if rows else None
        same = prev is not None and run_key(prev.run) == run_key(run)
        rows.append(BoardRow(prev.rank if same else i + 1, member, run, bad))
    columns = []
    for drill in order:
        cells = [(row.cell(drill), row.member.name) for row in rows]
        solved = [(d, n) for d, n in cells if d is not None and d.solved]
        timed = [(d.seconds, n) for d, n in solved if d.seconds is not None]
        fastest = min((t for t, _ in timed), default=None)
        columns.append(DrillColumn(drill, len(solved), fastest, tuple(sorted(n for t, n in timed if t == fastest))))
    counts: Counter[str] = Counter()
    makers: dict[str, set[int]] = {}
    where: dict[str, list[str]] = {}
    for i, row in enumerate(rows):
        for d in row.run.drills:
            for trap in d.traps:
                counts[trap] += 1
                makers.setdefault(trap, set()).add(i)
                if d.drill not in where.setdefault(trap, []):
                    where[trap].append(d.drill)
    mistakes = sorted((TeamMistake(t, n, len(makers[t]), tuple(where[t])) for t, n in counts.items()),
                      key=lambda m: (-m.members, -m.count, m.trap))
    session = results[0].session if results else None
    return Board(session, tuple(order), tuple(rows), tuple(columns), tuple(mistakes), tuple(flags),
                 any(not row.run.timed for row in rows))


# ---------------------------------------------------------------- the run


@dataclass
class TeamRun:
    """One member's pass through a session: drills in order under one countdown that
    never pauses (the session's minutes), a TimedQueue (trainer.timed_queue). The CLI runs
    each drill and hands back a result."""

    session: TeamSession
    clock: MonotonicClock
    queue: TimedQueue[str, DrillResult] = field(init=False)

    def __post_init__(self) -> None:
        self.queue = TimedQueue(self.session.drills, self.clock, self.session.minutes)

    @property
    def done(self) -> list[DrillResult]:
        return self.queue.results

    @property
    def deadline(self) -> float:
        return self.queue.started + self.session.minutes * 60

    def left(self) -> float:
        return max(0.0, self.deadline - self.clock.monotonic())

    def over(self) -> bool:
        return self.queue.over()

    def next_drill(self) -> str | None:
        return self.queue.next()

    def position(self) -> tuple[int, int]:
        return self.queue.position()

    def add(self, result: DrillResult, stop: bool = False) -> None:
        self.queue.add(result, stop)

    def run(self, finished_at: datetime, mode: str = "repl") -> Run:
        return session_run(self.session, self.done, finished_at, mode)


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

