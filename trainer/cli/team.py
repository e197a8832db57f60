"""`drill team new | run | board`: team study sessions.

- `new` writes a session file (drills, time limit, one seed).
- `run` does the session in the REPL under the session's countdown and seed
  (`DrillRepl` from trainer.repl, as `drill mock` does), records each attempt in
  your own progress (mode `team`), and writes ``DIR/<safe name>.json`` the moment
  a drill passes and again after every drill, atomically, readable by the group and others (0644): the folder
  is shared. A re-run adds a run to the file and keeps the earlier ones. Each
  graded drill records the hash of its cases (``grading.case_hash``). Without a
  terminal, ``--file ID=PATH`` grades solution files instead (for scripts and
  CI); such a run is untimed (``"mode": "files"``, no seconds).
- `board` merges every member's results file in DIR into a leaderboard. The
  files are untrusted: a malformed one is skipped with a warning naming it; one
  from another session, or graded on other cases than most members', is listed
  as not ranked, with the reason; the board still exits 0.
- `status` says who has submitted a run of the session and who has not (the
  members the session file lists, else those with a results file).
- `--git` (run, board, status) treats the folder as a git clone (trainer.team.gitsync):
  pull with rebase first; `run` then commits the member's own file and pushes it,
  and the board says when each file's commits landed (from `git log`), flagging a member's file
  changed by a commit of another identity than the one that first added it (docs/CLI.md).
"""
from __future__ import annotations

import dataclasses
import random
import re
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Callable, List, Mapping, Optional

import typer

from grader.errors import DrillError, UsageError, cut
import trainer.repl.grading as repl_grading
from grader.spec.userfile import SESSION_LIMIT, SOLUTION_LIMIT, UnreadableFile, read_bytes, read_text
from grader.spec.variants import describe
from trainer.practice.attempts import attempt_from
from trainer.team.render import render_board_html, render_board_md, render_board_text
from trainer.cli.app import DrillGroup, app, checked_seed, emit, no_color
from trainer.cli.catalogue import load_catalogue_or_exit
from trainer.cli.reporting import terminal_width
from trainer.cli.timed import Done, open_drill, run_queue
from trainer.files import write_atomically
from trainer.text.markup import printable
from trainer.repl.app import DrillOutcome, ReplOptions
from trainer.clock import Clock, PersonClock, SystemClock
from trainer.reports import plural
from trainer.clock import minute_text, utc_now
from trainer.store import NewAttempt, RecordResult, open_store
from trainer.team import gitsync
from trainer.team import (
    MAX_RESULTS_BYTES,
    MAX_RUNS,
    DrillResult,
    Flag,
    MemberResult,
    ResultsError,
    TeamError,
    TeamRun,
    TeamSession,
    add_run,
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
from trainer.text.verdict import ansi, render

if TYPE_CHECKING:
    from grader.spec import Spec
    from trainer.repl.grading import Grading

team_app = typer.Typer(help="Team study sessions: one session file, one results file per member, a board.",
                       no_args_is_help=True, add_completion=False, rich_markup_mode=None,
                       cls=DrillGroup)  # descriptions whole, never cut with "..."
app.add_typer(team_app, name="team")

BOARD_FORMATS = ("text", "md", "html")
SHARED_MODE = 0o644  # session and results files: teammates read them from a shared folder


def _minutes(minutes: float) -> str:
    return f"{minutes:g} minute" + ("" if minutes == 1 else "s")


def _warn(message: str) -> None:
    typer.echo(f"drill: {printable(message)}", err=True)


def open_grading() -> Grading:
    """The grader for `team run` (tests replace it with an in-process one)."""
    return repl_grading.open_grading()


def _read_session(path: Path, known: Mapping[str, Spec]) -> TeamSession:
    """The session file at ``path``, its variants checked against the drills' own (``known``: the specs)."""
    if path.is_dir():
        raise UsageError(f"{path} is a folder; give the session .yaml file")
    try:
        text = read_text(path, SESSION_LIMIT)
    except UnreadableFile as exc:
        if exc.missing:
            raise UsageError(f"no session file at {path}; `drill team new` writes one")
        raise UsageError(str(exc))
    return parse_session(text, known, str(path))  # TeamError: the CLI's error edge, exit 2


# --------------------------------------------------------------------- new


@team_app.command("new")
def team_new(
    drills: str = typer.Option(..., "--drills", metavar="ID,ID", help="the drills, comma-separated, in order"),
    minutes: float = typer.Option(30, "--minutes", "-m", help="the session's time limit"),
    seed: Optional[int] = typer.Option(None, "--seed", callback=checked_seed,
                                       help="case seed shared by every member (default: random)"),
    out: Path = typer.Option(..., "--out", "-o", metavar="SESSION.yaml", help="where to write the session file"),
    title: str = typer.Option("", "--title", help="a title shown on the board"),
    force: bool = typer.Option(False, "--force", help="overwrite an existing session file"),
    members: str = typer.Option("", "--members", metavar="NAME,NAME",
                                help="who should submit (`drill team status` says who has not)"),
    variant: List[str] = typer.Option([], "--variant", metavar="ID:AXIS=VALUE",
                                      help="fix a drill's variant for every member (repeatable); "
                                           "default: the contract as written"),
) -> None:
    """Write a session file: the drills, the time limit and one seed for every member."""
    cat = load_catalogue_or_exit()
    if seed is None:
        seed = random.SystemRandom().randrange(1, 10**9)
    session = new_session(drills.split(","), minutes, seed, cat.specs, title, _variant_options(variant))
    names = []
    for raw in (m for m in members.split(",") if m.strip()):
        try:
            names.append(check_name(raw))
        except ValueError as exc:
            raise UsageError(f"--members: {exc}")
    session = dataclasses.replace(session, members=tuple(dict.fromkeys(names)))
    if out.is_dir():
        raise UsageError(f"{out} is a folder; give a file name such as {out / 'session.yaml'}")
    if out.exists() and not force:
        raise UsageError(f"{out} exists; pass --force to overwrite it")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(out, session_yaml(session), mode=SHARED_MODE)
    except OSError as exc:
        raise UsageError(f"cannot write {out}: {exc.strerror or exc}")
    fixed = "".join(f", {d} under {describe(v)}" for d, v in session.variants.items())
    typer.echo(f"wrote {printable(out)}: {plural(len(session.drills), 'drill')}, {_minutes(session.minutes)}, "
               f"seed {session.seed}{fixed} (session {session.id}).")
    typer.echo(f"Each member runs: drill team run {printable(out)} --name NAME --results SHARED_FOLDER")


# --------------------------------------------------------------------- run


def _results_path(folder: Path, name: str) -> Path:
    """DIR/<safe name>.json, checked to lie directly inside DIR."""
    target = folder / member_filename(name)
    if target.resolve().parent != folder.resolve():
        raise UsageError(f"refusing to write outside {folder}")
    return target


def _record(attempt: NewAttempt) -> RecordResult:
    with open_store() as store:
        return store.record_attempt(attempt)


def _save(path: Path, result: MemberResult) -> None:
    try:
        write_atomically(path, results_json(result), mode=SHARED_MODE)
    except OSError as exc:
        raise DrillError(f"cannot write {path}: {exc.strerror or exc}") from None


def _variant_options(pairs: list[str]) -> dict[str, dict[str, str]]:
    """`--variant ID:AXIS=VALUE ...` as drill -> {axis: value} (checked against the drill by new_session)."""
    out: dict[str, dict[str, str]] = {}
    for raw in pairs:
        drill, sep, choice = raw.partition(":")
        axis, eq, value = choice.partition("=")
        if not sep or not eq or not drill or not axis or not value:
            raise UsageError(f"--variant {cut(raw)!r}: write ID:AXIS=VALUE, e.g. mha-padding:mask=pad")
        out.setdefault(drill.strip(), {})[axis.strip()] = value.strip()
    return out


def case_hash(grading: Grading, drill: str, seed: int, variant: dict[str, str] | None = None) -> str | None:
    """The hash of the cases ``drill`` is graded on with ``seed`` under ``variant`` (None when the grader
    cannot say)."""
    try:
        value = grading.case_hash(drill, seed, **({"variant": variant} if variant else {}))
    except Exception:  # noqa: BLE001 - the board flags a pass with no case hash
        return None
    return value if isinstance(value, str) else None


def _earlier(target: Path, session: TeamSession, name: str, known: set[str]) -> MemberResult | None:
    """The runs already in the member's results file (a re-run keeps them); a usage error
    when the file cannot be kept (another session, another name, malformed, full)."""
    if not target.exists():
        return None
    try:
        earlier = parse_results(_read_capped(target), str(target), known)
    except UnreadableFile as exc:
        raise UsageError(f"cannot read {printable(target)}: {exc.reason}")
    except OSError as exc:
        raise UsageError(f"cannot read {printable(target)}: {exc.strerror or exc}")
    except ResultsError as exc:
        raise UsageError(f"{printable(exc)}; move it away or choose another --results folder (nothing was changed)")
    if earlier.session != session.id:
        raise UsageError(f"{printable(target)} holds results of another session ({earlier.session}); "
                         f"choose another --results folder for this one (nothing was changed)")
    if earlier.name != name:
        raise UsageError(f"{target} holds the results of {printable(earlier.name)!r}, not {printable(name)!r} "
                         f"(nothing was changed)")
    if len(earlier.runs) >= MAX_RUNS:
        raise UsageError(f"{target} already holds {MAX_RUNS} runs, the most a results file keeps; "
                         f"move it away to start afresh (nothing was changed)")
    return earlier


def _grade_files(session: TeamSession, files: dict[str, str], flow: TeamRun, session_id: int,
                 save: Callable[[DrillResult | None], None], said: Callable[[], None] = lambda: None) -> None:
    """Non-interactive: grade each given file once with the session's seed; other drills are skipped."""
    sources = {}
    for drill, path in files.items():
        sources[drill] = read_text(path, SOLUTION_LIMIT)  # an UnreadableFile is a usage problem at the edge
    grading = open_grading()

    def grade(drill: str) -> Done[DrillResult]:
        if drill not in sources:
            return Done(DrillResult(drill, "skipped", None))
        started = utc_now()
        fixed = session.variant(drill)
        path = str(Path(files[drill]).resolve())
        report = (grading.grade(drill, sources[drill], path, session.seed, variant=fixed) if fixed
                  else grading.grade(drill, sources[drill], path, session.seed))  # a grading from before variants
        # graded after the fact: the grading time is not a solving time (no target), and the
        # result is untimed (no seconds)
        _record(attempt_from(report, drill=drill, mode="team", started_at=started, seconds=report.seconds,
                             code=sources[drill], session_id=session_id, target_seconds=None))
        trap = report.trap.id if report.trap else None
        typer.echo(ansi(render(report, "compact", width=shutil.get_terminal_size().columns),
                        color=not no_color() and sys.stdout.isatty()), nl=False)
        return Done(DrillResult(drill, "passed" if report.verdict == "pass" else "failed", None, 1, 0,
                                (trap,) if trap else (), case_hash(grading, drill, session.seed, fixed)))

    def after(drill: str, done: Done[DrillResult]) -> None:
        if drill in sources:
            save(None)
            said()

    run_queue(flow.queue, grading, grade, after=after)


def has_terminal() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty()


def run_drill(spec: Spec, grading: Grading, options: ReplOptions, clock: Clock) -> DrillOutcome:
    """One drill in the REPL (trainer.repl's DrillRepl); returns its DrillOutcome."""
    return open_drill(spec, grading, options, clock)


def _run_repl(session: TeamSession, flow: TeamRun, session_id: int, save: Callable[[DrillResult | None], None],
              clock: Clock,
              vi: bool = False, said: Callable[[], None] = lambda: None) -> None:
    """The session's drills in order, one countdown (the flow's deadline), the session's seed."""
    cat = load_catalogue_or_exit()
    grading = open_grading()

    def result_of(drill_id: str, outcome: DrillOutcome) -> DrillResult:
        status = outcome.status if outcome.status in ("passed", "skipped", "quit", "timeout") else "failed"
        graded = int(outcome.attempts) > 0 or status in ("passed", "failed")
        return DrillResult(drill_id, status, float(outcome.seconds), int(outcome.attempts), int(outcome.hints),
                           tuple(outcome.traps),
                           case_hash(grading, drill_id, session.seed, session.variant(drill_id)) if graded else None)

    def drill(drill_id: str) -> Done[DrillResult]:
        pos, total = flow.queue.position()
        options = ReplOptions(mode="team", deadline=flow.queue.deadline, flow_id=session_id, seed=session.seed,
                              label=f"team {pos}/{total}", in_flow=True, last=pos == total, vi=vi,
                              on_pass=lambda outcome: save(result_of(drill_id, outcome)))
        outcome = run_drill(cat.get(drill_id).under(session.variant(drill_id)), grading, options, clock)
        return Done(result_of(drill_id, outcome), stop=bool(outcome.stop))

    def after(drill_id: str, done: Done[DrillResult]) -> None:
        typer.echo(f"{drill_id}: {done.result.status}")
        save(None)
        said()

    run_queue(flow.queue, grading, drill, after=after)


def make_clock() -> Clock:
    """The session clock: monotonic for the countdown, UTC for the records (tests use a fake); the
    person's time, stopped while a submit is graded (trainer.clock.PersonClock)."""
    return PersonClock(SystemClock())


@team_app.command("run")
def team_run(
    session_file: Path = typer.Argument(..., metavar="SESSION.yaml", help="the session file"),
    name: str = typer.Option(..., "--name", help="your name on the board"),
    results: Optional[Path] = typer.Option(None, "--results", metavar="DIR",
                                           help="the shared results folder (default: the session file's folder)"),
    file: List[str] = typer.Option([], "--file", metavar="ID=PATH",
                                   help="grade this file for drill ID instead of opening the REPL (repeatable)"),
    git: bool = typer.Option(False, "--git", help="the folder is a git clone: pull first, then commit your "
                             "results file and push it"),
) -> None:
    """Do the session: its drills in the REPL under one countdown, graded with its seed."""
    cat = load_catalogue_or_exit()
    session = _read_session(session_file, cat.specs)
    try:
        name = check_name(name)
    except ValueError as exc:
        raise UsageError(str(exc))
    files = parse_file_options(file, session)
    if not files and not has_terminal():
        raise UsageError("team run needs a terminal for the REPL; to grade files instead, pass "
                         "--file ID=PATH for each drill")
    folder = results if results is not None else (session_file.parent if str(session_file.parent) else Path("."))
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot use {folder} as the results folder: {exc.strerror or exc}")
    if not folder.is_dir():
        raise UsageError(f"{folder} is not a folder")
    target = _results_path(folder, name)
    root = _git_sync(folder) if git else None
    if root is not None and any(Path(p.path).name == target.name for p in _pending(root, folder)):
        _git_step(lambda: gitsync.publish(root, target, f"drill team: {name}'s results of an earlier run, "
                                                         f"not pushed then"),
                  f"your earlier results are in {printable(target)} but not pushed")
    earlier = _earlier(target, session, name, set(cat.specs))
    clock = make_clock()
    flow = TeamRun(session, clock)
    mode = "files" if files else "repl"
    with open_store() as store:
        vi_mode = bool(store.settings().vi_mode)
        session_id = store.start_session("team", {"session": session.id, "drills": list(session.drills),
                                                  "minutes": session.minutes, "seed": session.seed,
                                                  "name": name, "mode": mode})

    unpushed: list[str] = []  # why the last push after a drill failed ("" once one succeeds)

    def save(current: DrillResult | None = None) -> None:
        """The member's file as the run stands; ``current``: the drill open in the REPL, just passed.
        Under --git it is committed and pushed at once (a pass, and every drill's end), so a terminal
        closed or killed after a pass does not keep the result from the team; said nothing on the
        screen (the REPL may be on it), a failure is kept for the line after the drill."""
        _save(target, add_run(earlier, session, name, flow.run(clock.now(), mode, current)))
        if root is not None:
            try:
                gitsync.publish(root, target, f"drill team: {name} in session {session.id}, "
                                              f"{flow.run(clock.now(), mode, current).solved} solved so far")
                unpushed[:] = []
            except gitsync.GitError as exc:
                unpushed[:] = [str(exc)]

    def said_unpushed() -> None:
        if unpushed:
            _warn(f"git: not pushed yet ({unpushed[0]}); the next `drill team run`, `team status --git --push` "
                  f"or `team board --git --push` here retries")

    again = ""
    if earlier is not None:
        n = len(earlier.runs)
        again = f" (after your {'earlier run, which stays' if n == 1 else f'{n} earlier runs, which stay'} there)"
    typer.echo(f"Team session {session.id}: {plural(len(session.drills), 'drill')} in {_minutes(session.minutes)}, "
               f"seed {session.seed}. Results go to {printable(target)}{again}.")
    if files:
        _grade_files(session, files, flow, session_id, save, said_unpushed)
    else:
        _run_repl(session, flow, session_id, save, clock, vi_mode, said_unpushed)
    final = flow.run(clock.now(), mode)
    _save(target, add_run(earlier, session, name, final))
    with open_store() as store:
        store.end_session(session_id, {"solved": final.solved, "seconds": final.solved_seconds,
                                       "results": str(target)})
    timing = "" if final.timed else " (untimed: graded from files)"
    typer.echo(f"{name}: solved {final.solved}/{len(session.drills)}{timing}; wrote {printable(target)}. "
               f"`drill team board {printable(folder)}{' --git' if git else ''}` shows the board.")
    if root is not None:
        title = f" ({session.title})" if session.title else ""
        message = (f"drill team: {name} ran session {session.id}{title}: solved {final.solved}/"
                   f"{len(session.drills)}" + ("" if final.timed else " (untimed, from files)"))
        _git_step(lambda: gitsync.publish(root, target, message), "your results are written in "
                  f"{printable(target)} but not pushed")


# --------------------------------------------------------------------- git


def _git_step(step: Callable[[], str], after: str = "") -> str:
    """Run one git step and say what it did; a GitError is one line and exit status 1."""
    try:
        said = step()
    except gitsync.GitError as exc:
        typer.echo(f"drill: git: {printable(str(exc))}" + (f" ({after})" if after else ""), err=True)
        raise typer.Exit(1) from None
    from trainer.text.fold import fold_line

    typer.echo("\n".join(fold_line(f"git: {printable(said)}", terminal_width(), more="  ")))
    return said


def _git_sync(folder: Path) -> Path:
    """The clone holding ``folder``, pulled with rebase (exit 1 with the reason otherwise)."""
    holder: list[Path] = []

    def step() -> str:
        holder.append(gitsync.clone_root(folder))
        return gitsync.sync(holder[0])

    _git_step(step)
    return holder[0]


def _landed_lines(root: Path, results: list[MemberResult]) -> tuple[list[str], list[str]]:
    """The board's "landed" line per member, and a warning per member file whose commits include
    one by another identity than the file's first commit (gitsync.stranger)."""
    paths = [Path(r.source) for r in results]
    found = gitsync.landed(root, paths)
    lines, warnings = [], []
    for r in results:
        name = Path(r.source).name
        commits = found.get(name, [])
        if not commits:
            lines.append(f"{r.name}: {name} is not committed yet")
            continue
        last = commits[0]
        n = len(commits)
        line = (f"{r.name}: last landed {last.when_text()} "
                f"({n} commit{'s' if n != 1 else ''}; {last.commit[:8]} {cut(last.subject, 120)})")
        other = gitsync.stranger(commits)
        if other is not None:
            flag = (f"{name} {'last ' if other is last else ''}changed by a commit of {cut(other.email)} "
                    f"({other.commit[:8]}), not of {cut(commits[-1].email)}, whose commit first added it")
            line += f"; flagged: {flag}"
            warnings.append(f"flagged {r.source}: {flag}")
        lines.append(line)
    return lines, warnings


# ------------------------------------------------------------------- board


def _read_capped(path: Path) -> bytes:
    """The bytes of a regular file of at most MAX_RESULTS_BYTES; UnreadableFile otherwise."""
    return read_bytes(path, MAX_RESULTS_BYTES)

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
        except UnreadableFile as exc:
            warnings.append(f"skipped {path}: cannot read it ({exc.reason})")
            continue
        try:
            good.append(parse_results(raw, str(path), known))
        except ResultsError as exc:
            warnings.append(f"skipped {exc.source}: {exc.reason}")
    return good, warnings


def _folder_session(folder: Path, known: Mapping[str, Spec]) -> TeamSession | None:
    """The session file beside the results, when the folder holds exactly one that parses. A file that
    says it is a session (a top-level `drills:`) and is refused is named on stderr with the reason;
    other YAML files are passed over quietly."""
    found = []
    for path in sorted(folder.iterdir()):
        if path.suffix.lower() in (".yaml", ".yml") and not path.is_symlink():
            try:
                text = read_text(path, SESSION_LIMIT)
            except UnreadableFile:
                continue
            try:
                found.append(parse_session(text, known, str(path)))
            except TeamError as exc:
                if re.search(r"^drills\s*:", text, re.MULTILINE):
                    _warn(f"not using {path} as the session: {cut(exc.problems[0], 300)}")
    return found[0] if len(found) == 1 else None


@team_app.command("board")
def team_board(
    folder: Path = typer.Argument(..., metavar="DIR", help="the shared results folder"),
    fmt: str = typer.Option("text", "--format", "-f", metavar="FORMAT", help="text, md or html"),
    session_file: Optional[Path] = typer.Option(None, "--session", metavar="SESSION.yaml",
                                                help="the session (default: the one session file in DIR, "
                                                     "else the session most results belong to)"),
    output: Optional[Path] = typer.Option(None, "--output", "-o", metavar="FILE", help="write to FILE"),
    git: bool = typer.Option(False, "--git", help="the folder is a git clone: pull first, and say when "
                             "each member's results landed (git log)"),
    push: bool = typer.Option(False, "--push", help="with --git: commit and push this clone's results files "
                              "that a run left uncommitted or unpushed"),
) -> None:
    """The leaderboard and per-drill breakdown merged from every member's results file."""
    fmt = fmt.lower()
    if fmt not in BOARD_FORMATS:
        raise UsageError(f"unknown format {fmt!r}; choose one of {', '.join(BOARD_FORMATS)}")
    if not folder.is_dir():
        raise UsageError(f"{folder} is not a folder of results files")
    root = _git_sync_quiet(folder) if git else None
    if root is not None:
        _unlanded(root, folder, push, "board")
    specs = load_catalogue_or_exit().specs
    known = set(specs)
    session = _read_session(session_file, specs) if session_file is not None else _folder_session(folder, specs)
    results, warnings = load_results(folder, known)
    chosen = choose_session(results, session.id if session else None)
    mine, foreign = split_foreign(results, chosen)
    flags = [Flag(r.name, r.source, f"another session ({r.session}, not {chosen})") for r in foreign]
    if session is not None:
        wanted = set(session.drills)
        for r in list(mine):
            stray = [d.drill for run in r.runs for d in run.drills if d.drill not in wanted]
            if stray:
                mine.remove(r)
                flags.append(Flag(r.name, r.source, f"drill {stray[0]} is not in the session"))
    board = build_board(mine, session.drills if session else None, flags)
    skipped = [printable(w) for w in warnings]  # the board lists the flagged files itself
    for w in skipped + [printable(f"not ranked {f.source}: {f.reason}") for f in board.flagged]:
        _warn(w)
    title = (session.title if session and session.title else "Team board")
    landed = None
    if root is not None:
        landed, strangers = _landed_lines(root, [row.member for row in board.rows])
        for w in strangers:
            _warn(w)
    if fmt == "md":
        text = render_board_md(board, title, skipped, landed)
    elif fmt == "html":
        text = render_board_html(board, title, skipped, landed)
    else:
        color = output is None and not no_color() and sys.stdout.isatty()
        text = render_board_text(board, title, skipped, color=color,
                                 width=terminal_width() if output is None else 120, landed=landed)
    emit(text, output, f"the {fmt} board")


def _pending(root: Path, folder: Path) -> list[gitsync.Pending]:
    try:
        return gitsync.pending(root, folder)
    except gitsync.GitError as exc:
        _warn(f"git: cannot tell which results files are not pushed: {exc}")
        return []


def _unlanded(root: Path, folder: Path, push: bool, command: str) -> None:
    """This clone's results files the team cannot see yet (a run killed after a pass, a failed push):
    each said on stderr with the command that lands it, or, with --push, committed and pushed."""
    for p in _pending(root, folder):
        if not push:
            _warn(f"{p.name} is {p.state} yet, so only this clone counts it: run `drill team {command} "
                  f"{folder} --git --push` to land it")
            continue
        try:
            said = gitsync.publish(root, root / p.path, f"drill team: {Path(p.path).stem}'s results, "
                                                        f"not pushed when they were written")
        except gitsync.GitError as exc:
            _warn(f"git: {exc}")
            raise typer.Exit(1) from None
        typer.echo(f"git: {printable(said)}", err=True)


def _git_sync_quiet(folder: Path) -> Path:
    """As _git_sync, saying what git did on stderr (stdout is the board)."""
    try:
        root = gitsync.clone_root(folder)
        said = gitsync.sync(root)
    except gitsync.GitError as exc:
        typer.echo(f"drill: git: {printable(str(exc))}", err=True)
        raise typer.Exit(1) from None
    typer.echo(f"git: {printable(said)}", err=True)
    return root


@team_app.command("status")
def team_status(
    folder: Path = typer.Argument(..., metavar="DIR", help="the shared results folder"),
    session_file: Optional[Path] = typer.Option(None, "--session", metavar="SESSION.yaml",
                                                help="the session (default: the one session file in DIR)"),
    git: bool = typer.Option(False, "--git", help="the folder is a git clone: pull first"),
    push: bool = typer.Option(False, "--push", help="with --git: commit and push this clone's results files "
                              "that a run left uncommitted or unpushed"),
) -> None:
    """Who has submitted a run of the session and who has not yet."""
    if not folder.is_dir():
        raise UsageError(f"{folder} is not a folder of results files")
    if git:
        _unlanded(_git_sync_quiet(folder), folder, push, "status")
    specs = load_catalogue_or_exit().specs
    known = set(specs)
    session = _read_session(session_file, specs) if session_file is not None else _folder_session(folder, specs)
    results, warnings = load_results(folder, known)
    for w in warnings:
        _warn(printable(w))
    chosen = session.id if session is not None else choose_session(results, None)
    mine, foreign = split_foreign(results, chosen)
    submitted = {r.name: r for r in mine if r.runs}
    if session is not None and session.members:
        expected = list(session.members)
        source = "the session file lists"
    else:
        expected = sorted(submitted)
        source = "results in the folder name"
    done = [n for n in expected if n in submitted]
    waiting = [n for n in expected if n not in submitted]
    extra = sorted(n for n in submitted if n not in expected)
    what = f"session {chosen}" if chosen else "no session yet"
    typer.echo(f"Team status of {what}: {len(done)}/{len(expected)} members {source} have submitted.")
    for n in done:
        r = submitted[n]
        last = r.runs[-1]
        typer.echo(f"  submitted  {printable(n)}: {plural(len(r.runs), 'run')}, last "
                   f"{minute_text(last.finished_at)}, solved {last.solved}/{len(last.drills)}")
    for n in waiting:
        typer.echo(f"  not yet    {printable(n)}")
    for n in extra:
        typer.echo(f"  submitted  {printable(n)} (not listed in the session file)")
    for r in foreign:
        typer.echo(f"  other      {printable(r.name)}: {printable(Path(r.source).name)} is for another session ({r.session})")
    if session is None or not session.members:
        typer.echo("(To list who should submit, add `members: [Ada, Cy]` to the session file.)")
