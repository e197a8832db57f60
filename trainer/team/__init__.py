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
of the cases it was graded on (``grader.cases.case_hash``), so the board can tell a
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

The package, one module each: ``session`` (the session file), ``results`` (the
records and the results file's text), ``reading`` (parsing a results file),
``board`` (the leaderboard model), ``run`` (one member's timed pass) and
``render`` (the board as text, Markdown and HTML; import it from there, so that
reading a board never loads rich). Everything but ``render`` is re-exported here.
"""
from __future__ import annotations

from trainer.team.board import (
    Board,
    BoardRow,
    DrillColumn,
    Flag,
    TeamMistake,
    build_board,
    choose_session,
    reference_cases,
    run_problem,
    split_foreign,
)
from trainer.team.reading import (
    MAX_RESULTS_BYTES,
    MAX_RUNS,
    MAX_TRAPS,
    ResultsError,
    parse_results,
)
from trainer.team.results import (
    MAX_NAME,
    MODES,
    RESULTS_FORMAT,
    RESULTS_KIND,
    STATUSES,
    DrillResult,
    MemberResult,
    Run,
    add_run,
    check_name,
    grader_version,
    member_filename,
    results_json,
    run_key,
    session_run,
)
from trainer.team.run import (
    TeamRun,
)
from trainer.team.session import (
    MAX_DRILLS,
    MAX_MINUTES,
    SESSION_FORMAT,
    TeamError,
    TeamSession,
    new_session,
    parse_file_options,
    parse_session,
    session_yaml,
)

__all__ = [
    "MAX_DRILLS",
    "MAX_MINUTES",
    "MAX_NAME",
    "MAX_RESULTS_BYTES",
    "MAX_RUNS",
    "MAX_TRAPS",
    "MODES",
    "RESULTS_FORMAT",
    "RESULTS_KIND",
    "SESSION_FORMAT",
    "STATUSES",
    "Board",
    "BoardRow",
    "DrillColumn",
    "DrillResult",
    "Flag",
    "MemberResult",
    "ResultsError",
    "Run",
    "TeamError",
    "TeamMistake",
    "TeamRun",
    "TeamSession",
    "add_run",
    "build_board",
    "check_name",
    "choose_session",
    "grader_version",
    "member_filename",
    "new_session",
    "parse_file_options",
    "parse_results",
    "parse_session",
    "reference_cases",
    "results_json",
    "run_key",
    "run_problem",
    "session_run",
    "session_yaml",
    "split_foreign",
]
