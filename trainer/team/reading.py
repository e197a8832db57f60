"""Reading a results file, which is untrusted input: ``parse_results`` checks its
size, its JSON, every field's type and range, and that every drill id is known,
and raises ``ResultsError`` naming the file otherwise.
"""
from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any, Iterable

from grader.errors import UsageError
from trainer.clock import in_utc
from trainer.team.results import (
    MODES,
    RESULTS_FORMAT,
    RESULTS_KIND,
    STATUSES,
    DrillResult,
    MemberResult,
    Run,
    check_name,
)
from trainer.team.session import MAX_DRILLS, is_int, is_number

MAX_RESULTS_BYTES = 256 * 1024
MAX_RUNS = 20
MAX_TRAPS = 20
_TRAP_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_SESSION_ID = re.compile(r"[0-9a-f]{16}")  # always fullmatch
_CASES_ID = re.compile(r"[0-9a-f]{16}")
_GRADER = re.compile(r"[A-Za-z0-9][A-Za-z0-9 ._+-]{0,39}")


class ResultsError(UsageError):
    """A results file that is malformed or foreign; the message names the file."""

    def __init__(self, source: str, reason: str) -> None:
        self.source, self.reason = source, reason
        super().__init__(f"{source}: {reason}")


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
    elif not is_number(seconds) or not 0 <= seconds <= 86400:
        raise ResultsError(source, f"{where}.seconds must be a number from 0 to 86400")
    attempts, hints = item.get("attempts", 0), item.get("hints", 0)
    if not is_int(attempts) or not 0 <= attempts <= 10_000 or not is_int(hints) or not 0 <= hints <= 1000:
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
    except (ValueError, OverflowError):
        raise ResultsError(source, f"{where}.finished_at must be an ISO-8601 time with a zone") from None
    finished = in_utc(finished)  # 9999-12-31T23:00-05:00 (year 10000 in UTC) is clamped, not refused
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
