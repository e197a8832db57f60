"""`drill team new | run | board`: team study sessions.

- `new` writes a session file (drills, time limit, one seed).
- `run` does the session in the REPL under the session's countdown and seed
  (`DrillRepl` from trainer.repl, as `drill mock` does), records each attempt in
  your own progress (mode `team`), and writes ``DIR/<safe name>.json`` after
  every drill, atomically. Without a terminal, ``--file ID=PATH`` grades
  solution files instead (for scripts and CI); those times are grading times,
  not solving times, and the results file says so (``"mode": "files"``).
- `board` merges every member's results file in DIR into a leaderboard. The
  files are untrusted: a malformed or foreign one is skipped with a warning
  naming it, and the board still exits 0.
"""
from __future__ import annotations

import random
import shutil
import sys
from pathlib import Path
from typing import Any, List, NoReturn, Optional

import typer

from trainer.attempts import attempt_from
from trainer.cli.app import DrillGroup, app, emit, no_color, usage_error
from trainer.cli.catalogue import load_catalogue_or_exit
from trainer.files import write_atomically
from trainer.markup import printable
from trainer.scheduling import utc_now
from trainer.verdict import ansi, render
from trainer.team import (
    MAX_RESULTS_BYTES,
    DrillResult,
    MemberResult,
    ResultsError,
    TeamError,
    TeamRun,
    TeamSession,
    build_board,
    check_name,
    choose_session,
    member_filename,
    new_session,
    parse_file_options,
    parse_results,
    parse_session,
    results_json,
    session_yaml,
    split_foreign,
)

team_app = typer.Typer(help="Team study sessions: one session file, one results file per member, a board.",
                       no_args_is_help=True, add_completion=False, rich_markup_mode=None,
                       cls=DrillGroup)  # descriptions whole, never cut with "..."
app.add_typer(team_app, name="team")

BOARD_FORMATS = ("text", "md", "html")


def _warn(message: str) -> None:
    typer.echo(f"drill: {message}", err=True)


def _team_error(exc: TeamError) -> NoReturn:
    for problem in exc.problems:
        _warn(problem)
    raise typer.Exit(2)


def open_grading() -> Any:
    """The grader for `team run` (tests replace it with an in-process one)."""
    from trainer.repl.grading import open_grading as opener

    return opener()


def _read_session(path: Path, known: set[str]) -> TeamSession:
    if path.is_dir():
        usage_error(f"{path} is a folder; give the session .yaml file")
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        usage_error(f"no session file at {path}; `drill team new` writes one")
    except (OSError, UnicodeDecodeError) as exc:
        usage_error(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}")
    try:
        return parse_session(text, known, str(path))
    except TeamError as exc:
        _team_error(exc)
        raise  # unreachable


# --------------------------------------------------------------------- new


@team_app.command("new")
def team_new(
    drills: str = typer.Option(..., "--drills", metavar="ID,ID", help="the drills, comma-separated, in order"),
    minutes: float = typer.Option(30, "--minutes", "-m", help="the session's time limit"),
    seed: Optional[int] = typer.Option(None, "--seed", help="case seed shared by every member (default: random)"),
    out: Path = typer.Option(..., "--out", "-o", metavar="SESSION.yaml", help="where to write the session file"),
    title: str = typer.Option("", "--title", help="a title shown on the board"),
    force: bool = typer.Option(False, "--force", help="overwrite an existing session file"),
) -> None:
    """Write a session file: the drills, the time limit and one seed for every member."""
    cat = load_catalogue_or_exit()
    if seed is None:
        seed = random.SystemRandom().randrange(1, 10**9)
    try:
        session = new_session(drills.split(","), minutes, seed, cat.specs, title)
    except TeamError as exc:
        _team_error(exc)
    if out.is_dir():
        usage_error(f"{out} is a folder; give a file name such as {out / 'session.yaml'}")
    if out.exists() and not force:
        usage_error(f"{out} exists; pass --force to overwrite it")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(out, session_yaml(session))
    except OSError as exc:
        usage_error(f"cannot write {out}: {exc.strerror or exc}")
    typer.echo(f"wrote {out}: {len(session.drills)} drill(s), {session.minutes:g} minutes, seed {session.seed} "
               f"(session {session.id}).")
    typer.echo(f"Each member runs: drill team run {out} --name NAME --results SHARED_FOLDER")


# --------------------------------------------------------------------- run


def _results_path(folder: Path, name: str) -> Path:
    """DIR/<safe name>.json, checked to lie directly inside DIR."""
    target = folder / member_filename(name)
    if target.resolve().parent != folder.resolve():
        usage_error(f"refusing to write outside {folder}")
    return target


def _record(attempt: dict[str, Any]) -> Any:
    from trainer.store import open_store

    with open_store() as store:
        return store.record_attempt(**attempt)


def _save(path: Path, result: MemberResult) -> None:
    try:
        write_atomically(path, results_json(result))
    except OSError as exc:
        _warn(f"cannot write {path}: {exc.strerror or exc}")
        raise typer.Exit(1) from None


def _grade_files(session: TeamSession, files: dict[str, str], flow: TeamRun, session_id: int,
                 save: Any) -> None:
    """Non-interactive: grade each given file once with the session's seed; other drills are skipped."""
    sources = {}
    for drill, path in files.items():
        try:
            sources[drill] = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            usage_error(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}")
    grading = open_grading()
    try:
        while (drill := flow.next_drill()) is not None:
            if drill not in sources:
                flow.add(DrillResult(drill, "skipped", 0.0))
                continue
            started = utc_now()
            report = grading.grade(drill, sources[drill], str(Path(files[drill]).resolve()), session.seed)
            # graded after the fact: the grading time is not a solving time (no target)
            _record(attempt_from(report, drill=drill, mode="team", started_at=started, seconds=report.seconds,
                                 code=sources[drill], session_id=session_id, target_seconds=None))
            trap = report.trap.id if report.trap else None
            flow.add(DrillResult(drill, "passed" if report.verdict == "pass" else "failed", report.seconds, 1, 0,
                                 (trap,) if trap else ()))
            typer.echo(ansi(render(report, "compact", width=shutil.get_terminal_size().columns),
                            color=not no_color() and sys.stdout.isatty()), nl=False)
            save()
    finally:
        grading.close()


def has_terminal() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty()


def run_drill(spec: Any, grading: Any, options: Any, clock: Any) -> Any:
    """One drill in the REPL (trainer.repl's DrillRepl); returns its DrillOutcome."""
    from trainer.paths import drill_home
    from trainer.repl.app import DrillRepl

    return DrillRepl(spec, grading, record=lambda **a: _record(a), home=drill_home(), clock=clock,
                     options=options).run()


def _run_repl(session: TeamSession, flow: TeamRun, session_id: int, save: Any, clock: Any, vi: bool = False) -> None:
    """The session's drills in order, one countdown (the flow's deadline), the session's seed."""
    from trainer.repl.app import ReplOptions

    cat = load_catalogue_or_exit()
    grading = open_grading()
    try:
        while (drill := flow.next_drill()) is not None:
            pos, total = flow.position()
            options = ReplOptions(mode="team", deadline=flow.deadline, session_id=session_id, seed=session.seed,
                                  label=f"team {pos}/{total}", in_session=True, vi=vi)
            outcome = run_drill(cat.get(drill), grading, options, clock)
            status = outcome.status if outcome.status in ("passed", "skipped", "quit", "timeout") else "failed"
            flow.add(DrillResult(drill, status, float(outcome.seconds), int(outcome.attempts), int(outcome.hints),
                                 tuple(outcome.traps)), stop=bool(outcome.stop))
            typer.echo(f"{drill}: {status}")
            save()
    finally:
        grading.close()


def make_clock() -> Any:
    """The session clock: monotonic for the countdown, UTC for the records (tests use a fake)."""
    from trainer.repl.clock import SystemClock

    return SystemClock()


@team_app.command("run")
def team_run(
    session_file: Path = typer.Argument(..., metavar="SESSION.yaml", help="the session file"),
    name: str = typer.Option(..., "--name", help="your name on the board"),
    results: Optional[Path] = typer.Option(None, "--results", metavar="DIR",
                                           help="the shared results folder (default: the session file's folder)"),
    file: List[str] = typer.Option([], "--file", metavar="ID=PATH",
                                   help="grade this file for drill ID instead of opening the REPL (repeatable)"),
) -> None:
    """Do the session: its drills in the REPL under one countdown, graded with its seed."""
    from trainer.cli.progress import store_errors
    from trainer.store import open_store

    cat = load_catalogue_or_exit()
    session = _read_session(session_file, set(cat.specs))
    try:
        name = check_name(name)
    except ValueError as exc:
        usage_error(str(exc))
    try:
        files = parse_file_options(file, session)
    except TeamError as exc:
        _team_error(exc)
    if not files and not has_terminal():
        usage_error("team run needs a terminal for the REPL; to grade files instead, pass "
                    "--file ID=PATH for each drill")
    folder = results if results is not None else (session_file.parent if str(session_file.parent) else Path("."))
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        usage_error(f"cannot use {folder} as the results folder: {exc.strerror or exc}")
    if not folder.is_dir():
        usage_error(f"{folder} is not a folder")
    target = _results_path(folder, name)
    clock = make_clock()
    flow = TeamRun(session, clock)
    mode = "files" if files else "repl"
    with store_errors():
        with open_store() as store:
            vi_mode = bool(store.settings().vi_mode)
            session_id = store.start_session("team", {"session": session.id, "drills": list(session.drills),
                                                      "minutes": session.minutes, "seed": session.seed,
                                                      "name": name, "mode": mode})

    def save() -> None:
        _save(target, flow.result(name, clock.now(), mode))

    again = " (replacing your earlier results there)" if target.exists() else ""
    typer.echo(f"Team session {session.id}: {len(session.drills)} drill(s) in {session.minutes:g} minutes, "
               f"seed {session.seed}. Results go to {target}{again}.")
    with store_errors():
        if files:
            _grade_files(session, files, flow, session_id, save)
        else:
            _run_repl(session, flow, session_id, save, clock, vi_mode)
    final = flow.result(name, clock.now(), mode)
    _save(target, final)
    with store_errors():
        with open_store() as store:
            store.end_session(session_id, {"solved": final.solved, "seconds": final.solved_seconds,
                                           "results": str(target)})
    typer.echo(f"{name}: solved {final.solved}/{len(session.drills)}; wrote {target}. "
               f"`drill team board {folder}` shows the board.")


# ------------------------------------------------------------------- board


def _read_capped(path: Path) -> bytes:
    with path.open("rb") as fh:
        return fh.read(MAX_RESULTS_BYTES + 1)


def load_results(folder: Path, known: set[str]) -> tuple[list[MemberResult], list[str]]:
    """Every valid results file in ``folder`` and the warnings for the others."""
    good, warnings = [], []
    for path in sorted(folder.iterdir()):
        if path.name.startswith(".") or path.suffix.lower() != ".json":
            continue
        if path.is_symlink() or not path.is_file():
            warnings.append(f"skipped {path}: not a regular file")
            continue
        try:
            raw = _read_capped(path)
        except OSError as exc:
            warnings.append(f"skipped {path}: cannot read it ({exc.strerror or exc})")
            continue
        try:
            good.append(parse_results(raw, str(path), known))
        except ResultsError as exc:
            warnings.append(f"skipped {exc.source}: {exc.reason}")
    return good, warnings


def _folder_session(folder: Path, known: set[str]) -> TeamSession | None:
    """The session file beside the results, when the folder holds exactly one that parses."""
    found = []
    for path in sorted(folder.iterdir()):
        if path.suffix.lower() in (".yaml", ".yml") and path.is_file() and not path.is_symlink():
            try:
                if path.stat().st_size <= MAX_RESULTS_BYTES:
                    found.append(parse_session(path.read_text(encoding="utf-8"), known, str(path)))
            except (OSError, UnicodeDecodeError, TeamError):
                continue
    return found[0] if len(found) == 1 else None


@team_app.command("board")
def team_board(
    folder: Path = typer.Argument(..., metavar="DIR", help="the shared results folder"),
    fmt: str = typer.Option("text", "--format", "-f", metavar="FORMAT", help="text, md or html"),
    session_file: Optional[Path] = typer.Option(None, "--session", metavar="SESSION.yaml",
                                                help="the session (default: the one session file in DIR, "
                                                     "else the session most results belong to)"),
    output: Optional[Path] = typer.Option(None, "--output", "-o", metavar="FILE", help="write to FILE"),
) -> None:
    """The leaderboard and per-drill breakdown merged from every member's results file."""
    from trainer.board_render import render_board_html, render_board_md, render_board_text
    from trainer.cli.reporting import terminal_width

    fmt = fmt.lower()
    if fmt not in BOARD_FORMATS:
        usage_error(f"unknown format {fmt!r}; choose one of {', '.join(BOARD_FORMATS)}")
    if not folder.is_dir():
        usage_error(f"{folder} is not a folder of results files")
    known = set(load_catalogue_or_exit().specs)
    session = _read_session(session_file, known) if session_file is not None else _folder_session(folder, known)
    results, warnings = load_results(folder, known)
    chosen = choose_session(results, session.id if session else None)
    mine, foreign = split_foreign(results, chosen)
    warnings += [f"skipped {r.source}: it belongs to another session ({r.session}, not {chosen})" for r in foreign]
    if session is not None:
        wanted = set(session.drills)
        for r in list(mine):
            stray = [d.drill for d in r.drills if d.drill not in wanted]
            if stray:
                mine.remove(r)
                warnings.append(f"skipped {r.source}: drill {stray[0]} is not in the session")
    warnings = [printable(w) for w in warnings]
    for w in warnings:
        _warn(w)
    board = build_board(mine, session.drills if session else None)
    title = (session.title if session and session.title else "Team board")
    skipped = warnings
    if fmt == "md":
        text = render_board_md(board, title, skipped)
    elif fmt == "html":
        text = render_board_html(board, title, skipped)
    else:
        color = output is None and not no_color() and sys.stdout.isatty()
        text = render_board_text(board, title, skipped, color=color,
                                 width=terminal_width() if output is None else 120)
    emit(text, output, f"the {fmt} board")
