"""`drill check` (grade files once) and `drill validate` (prove the specs).

Usage problems (unknown drill id, unreadable file, broken spec path) are
found before torch is imported, and exit with status 2.
"""
from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import time
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, List, Optional

import typer

from grader.errors import UsageError
from grader.sandbox import confine
from grader.catalogue import load_catalogue
from grader.fake.cuda import CHILD_ENV, cuda_problem
from grader.spec import TOPICS
from grader.spec.userfile import SOLUTION_LIMIT, read_source
from grader.spec.variants import describe
from trainer.cli.app import app, checked_seed, no_color
from trainer.cli.catalogue import complete_drill_id, load_catalogue_or_exit
from trainer.text.markup import printable
from trainer.paths import drill_roots
from trainer.text.verdict import ansi, render

if TYPE_CHECKING:
    from trainer.practice.sittings import SittingRecorder
    from grader.catalogue import Catalogue
    from grader.report import Report
    from grader.spec import Spec


def _start_zygote() -> None:
    """Start the sandbox children's zygote (grader.sandbox.zygote: a fresh interpreter importing torch)
    now, before this process imports torch itself, so the two imports run side by side, not one after
    the other. The grader would start it anyway, later (Grader.__init__); starting it is idempotent."""
    from grader.sandbox.zygote import ZYGOTE

    ZYGOTE.start()


def _read_sources(files: list[Path]) -> list[str]:
    sources = []
    for path in files:
        if path.is_dir():
            raise UsageError(f"{path} is a folder; give a solution .py file")
        # regular files only, capped: no FIFO hang; an UnreadableFile is a usage problem at the edge
        sources.append(read_source(path, SOLUTION_LIMIT))
    return sources


@app.command("check")
def check(
    drill_id: str = typer.Argument(..., metavar="ID", help="the drill id, e.g. mha-padding",
                                   autocompletion=complete_drill_id),
    files: List[Path] = typer.Argument(..., metavar="FILE...", help="solution files to grade"),
    as_json: bool = typer.Option(False, "--json", help="one JSON object per file on stdout, nothing else"),
    seed: Optional[int] = typer.Option(None, "--seed", callback=checked_seed,
                                       help="case seed (default: a new one per run, the same for every FILE)"),
    record: bool = typer.Option(False, "--record", help="record each file as an attempt; the run is one sitting"),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="every case, and what the sandbox enforces"),
    device: str = typer.Option("cpu", "--device", help="cpu, or cuda: run the cases on a real GPU (needs one)"),
    variant: List[str] = typer.Option([], "--variant", metavar="AXIS=VALUE",
                                      help="grade under a variant (repeatable; `random`: one other than the default, "
                                           "drawn from the seed); default: the contract as written"),
) -> None:
    """Grade solution files once: no REPL, no progress recorded unless --record."""
    from grader.spec.variants import parse_variant_args

    cat = load_catalogue_or_exit()  # parsed (or read from the cache) once: the grader gets this one
    spec = cat.get(drill_id)
    if seed is None:
        seed = random.SystemRandom().randrange(1, 2**31 - 1)  # one run, one seed: every file on the same cases
    spec = spec.under(parse_variant_args(spec, variant, seed))
    sources = _read_sources(files)
    if device not in ("cpu", "cuda"):
        raise UsageError(f"--device {printable(device)}: use cpu or cuda")
    if device == "cuda" and os.environ.get("DRILL_CUDA_CHILD") != "1":
        _check_in_fresh_process(drill_id, files, as_json, seed, record, verbose, spec.variant)
    if device == "cpu":
        _start_zygote()
    reports: list = []
    try:
        _check_all(spec, files, sources, reports, as_json, seed, record, verbose, device, cat)
    except KeyboardInterrupt:
        left = len(files) - len(reports)
        typer.echo(f"\ndrill check: stopped (Ctrl-C); {len(reports)} of {len(files)} file(s) graded, "
                   f"{left} not graded" + (", nothing more recorded" if record else "") + ".", err=True)
        raise typer.Exit(130) from None
    raise typer.Exit(0 if all(r.verdict == "pass" for r in reports) else 1)


def _check_all(spec: Spec, files: list[Path], sources: list[str], reports: list[Report], as_json: bool, seed: int | None,
               record: bool, verbose: bool, device: str = "cpu", catalogue: Catalogue | None = None) -> None:
    from grader import sandbox
    from grader.engine import Grader  # heavy import only now

    grader = Grader(catalogue, device=device)
    sitting = _sitting() if record else None
    if seed is None:
        seed = random.SystemRandom().randrange(1, 2**31 - 1)  # one run, one seed: every file on the same cases
    several = len(files) > 1
    if several and not as_json:
        typer.echo(f"{len(files)} files, graded on seed {seed} (--seed {seed} grades on the same cases again)")
    if spec.variant and not as_json:
        typer.echo(f"graded under the variant {describe(spec.variant)} ({_labels(spec)})")
    for number, (path, source) in enumerate(zip(files, sources), 1):
        started = datetime.now(timezone.utc)
        report = grader.grade(spec.id, source, str(path.resolve()), seed, variant=spec.variant, comments=False)
        if number < len(files):  # the next file's child is forked, confined and warmed while this one is told
            sandbox.prefork(idle=False)  # no person reads in between: one child, not a rehearsing pair
        if report.verdict != "internal":
            report.shape_comments = grader.shape_comments(spec.id, source, str(path.resolve()), seed, spec.variant)
        report.file = str(path)
        if report.verdict != "pass":
            report.smallest = grader.smallest(report, source, str(path.resolve()))  # within its budget
        reports.append(report)
        if as_json:
            sys.stdout.write(json.dumps(report.to_dict()) + "\n")
            sys.stdout.flush()
        else:
            shown = replace(report, seed=None) if several else report  # the seed was printed once, above
            typer.echo(render_report(shown, path=str(path), verbose=verbose), nl=False)
        if sitting is not None:
            _record(spec, report, source, started, sitting)
    if sitting is not None:
        closed = sitting.close("passed" if any(r.verdict == "pass" for r in reports) else "failed")
        if not as_json:
            typer.echo(_recorded_line(spec.id, reports, closed), err=True)
    if verbose and not as_json:
        _print_confinement()


def _labels(spec: Spec) -> str:
    """The chosen values' labels: "1/True = padding; time first (T, B, d)"."""
    axes = {a.name: a for a in (spec.base or spec).variants}
    return "; ".join(axes[a].values[v].label for a, v in spec.variant.items())


def _recorded_line(drill: str, reports: list[Report], closed: object) -> str:
    """What `check --record` recorded, its rating and when the drill comes back."""
    from fsrs import Rating

    from trainer.schedule.due import when
    from trainer.store import open_store

    passes = sum(1 for r in reports if r.verdict == "pass")
    what = f"recorded {len(reports)} attempt{'s' if len(reports) != 1 else ''} ({passes} passed) as one sitting"
    rating = getattr(closed, "rating", None)
    if rating:
        what += f", rated {Rating(rating).name} (graded files: never Easy)"
    with open_store() as store:
        card = store.card(drill)
    if card is not None and card.due is not None:
        what += f"; {drill} is due again {when(card.due, datetime.now(timezone.utc))}"
    return what + "."


def _check_in_fresh_process(drill_id: str, files: list[Path], as_json: bool, seed: Optional[int], record: bool,
                            verbose: bool, variant: dict[str, str] | None = None) -> None:
    """`check --device cuda`: CUDA cannot be used in a child forked from a process that initialised it,
    so the grading runs in a fresh process whose sandbox children start CUDA themselves (grader.fake.cuda)."""
    problem = cuda_problem()
    if problem:
        raise UsageError(f"--device cuda needs a GPU: {problem}. Every check already runs a device case on "
                         "fake CUDA tensors, without a GPU")
    argv = [sys.executable, "-m", "trainer", "check", drill_id, *(str(f) for f in files), "--device", "cuda"]
    argv += ["--json"] * as_json + ["--record"] * record + ["--verbose"] * verbose
    argv += ["--seed", str(seed)] if seed is not None else []
    argv += [f"--variant={a}={v}" for a, v in (variant or {}).items()]
    raise typer.Exit(subprocess.call(argv, env={**os.environ, CHILD_ENV: "1"}))


def _sitting() -> SittingRecorder:
    from trainer.practice.sittings import SittingRecorder  # the store: only a check that records

    return SittingRecorder()


def _record(spec: Spec, report: Report, source: str, started: datetime, sitting: SittingRecorder) -> None:
    from trainer.practice.attempts import attempt_from

    # grading time is not solving time: no target, so a pass is rated Good, not Easy
    attempt = attempt_from(report, drill=spec.id, mode="check", started_at=started, seconds=report.seconds,
                           code=source, target_seconds=None)
    sitting(attempt)


def _print_confinement() -> None:
    for feature in confine.probe():
        state = "enforced" if feature.enforced else "NOT enforced"
        typer.echo(f"sandbox: {feature.name}: {state} ({feature.detail})", err=True)


def render_report(report: Report, path: str = "", verbose: bool = False) -> str:
    """The full verdict for a terminal (or plain text for a pipe or NO_COLOR)."""
    footer = "" if verbose or len(report.failing) < 2 or report.alone else "--verbose lists every failing case"
    fragments = render(report, "full", width=shutil.get_terminal_size().columns, path=path, verbose=verbose,
                       footer=footer)
    return ansi(fragments, color=not no_color() and sys.stdout.isatty())


# ---------------------------------------------------------------- validate


@app.command("validate")
def validate(
    paths: Optional[List[Path]] = typer.Argument(None, metavar="PATH",
                                                 help="spec files or folders of specs (default: every drill)"),
    seed: int = typer.Option(1, "--seed", callback=checked_seed, help="case seed"),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="no progress bar"),
    jobs: int = typer.Option(0, "--jobs", "-j", min=0, help="drills proved at once, each in its own process "
                                                              "(default: one per CPU, at most 4)"),
) -> None:
    """Prove every spec: schema, reference passes its oracle, traps rejected, skeleton fails, quiz parses,
    the sample solutions in solutions/<id>/ beside the spec do what their names say, and all of it
    again under every value of every variant axis."""
    roots = drill_roots()
    if paths:
        for path in paths:
            if not path.exists():
                raise UsageError(f"{path} does not exist")
        roots = list(paths)
        cat = load_catalogue(roots)
    else:
        from trainer import catalogue_cache

        cat = catalogue_cache.load_catalogue()  # the same answer for the trainer's roots, parsed once per change
    problems: list[str] = list(cat.errors)
    if not cat.specs and not problems:
        raise UsageError(f"no drill specs found under {', '.join(map(str, paths or roots))}")
    from grader.authoring.proving import prove_all

    specs = list(cat.specs.values())
    t0 = time.monotonic()
    show_bar = not quiet and sys.stderr.isatty()
    jobs = jobs or min(4, os.cpu_count() or 1)
    from grader.sandbox import quiet as machinery_logs

    from trainer import validate_seconds

    seconds = validate_seconds.load()  # last run's times: the longest drills start first
    with machinery_logs.machinery():  # torch's fake-tensor logger speaks for the grader, not for the drill
        results = prove_all(cat, specs, seed, jobs,
                            progress=None if quiet else (lambda i, n, label: _progress(i, n, label, show_bar)),
                            seconds=seconds)
    validate_seconds.save({s.id: seconds[s.id] for s in specs if s.id in seconds})
    if not quiet:
        sys.stderr.write("\n" if show_bar else "")
    checks: list[str] = []
    for spec in specs:
        found, lines = results[spec.id]
        problems.extend(found)
        checks.extend(f"{spec.id}: {line}" for line in lines)
    for line in checks:  # the device case and memory at scale, per function (grader.fake), and the axes
        _echo_folded(printable(line))
    elapsed = time.monotonic() - t0
    if problems:
        for p in problems:
            _echo_folded(printable(p), err=True)
        to_fill = [p for p in problems if ": (to fill in): " in p]
        if to_fill:
            from grader.authoring.scaffold import MARKER

            _echo_folded(f"validate: {len(to_fill)} line(s) left to fill in, marked `{MARKER}` (drill new); "
                         "write what each says, then run drill validate again", err=True)
        failing = sorted({p.split(":", 1)[0] for p in problems})
        _echo_folded(f"validate: {len(problems)} problem(s) in {len(failing)} file(s), {_drills(len(specs))} checked "
                     f"in {elapsed:.1f} s", err=True)
        raise typer.Exit(1)
    from trainer.text.fold import terminal_width_of

    table = _variant_table(specs, terminal_width_of(sys.stdout))  # a pipe or a file: each row on one line
    if table:
        typer.echo("\n".join(table))
    varied = sum(1 for s in specs if s.variants)
    values = sum(len(a.values) - 1 for s in specs for a in s.variants)
    _echo_folded(f"validate: {_drills(len(specs))} ok in {elapsed:.1f} s ({varied} with variants: {values} values "
                 f"besides the defaults, each proved)")


def _drills(count: int) -> str:
    return f"{count} drill" + ("" if count == 1 else "s")


def _echo_folded(line: str, err: bool = False) -> None:
    """One line of validate's report, folded at spaces when it goes to a terminal (a pipe or a file gets
    it whole, as scripts read it)."""
    from trainer.text.fold import fold_line, terminal_width_of

    width = terminal_width_of(sys.stderr if err else sys.stdout)
    for part in fold_line(line, width) if width else [line]:
        typer.echo(part, err=err)


def _variant_table(specs: list[Spec], width: int | None = None) -> list[str]:
    """The closing note: each drill's axes and values, with the real code that uses each convention.
    `width` (a terminal's): a source too long for the line is folded at spaces under its own column."""
    import textwrap

    rows = [(s.id, a.name, v.name + ("*" if v.name == a.default else ""), v.source)
            for s in specs for a in s.variants for v in a.values.values()]
    if not rows:
        return []
    widths = [max(len(r[i]) for r in [*rows, ("drill", "axis", "value", "")]) for i in range(3)]
    out = ["", "variants (* the default, the contract as written):",
           "  " + "  ".join(h.ljust(w) for h, w in zip(("drill", "axis", "value"), widths)) + "  source"]
    last = ""
    for r in rows:
        drill = r[0] if r[0] != last else ""
        last = r[0]
        head = "  " + "  ".join(c.ljust(w) for c, w in zip((drill, r[1], r[2]), widths)) + "  "
        if width is None or len(head) + len(r[3]) <= width:
            out.append(head + r[3])
            continue
        parts = textwrap.wrap(r[3], max(20, width - len(head)), break_long_words=False, break_on_hyphens=False)
        out.extend((head if i == 0 else " " * len(head)) + part for i, part in enumerate(parts or [""]))
    return out


# ---------------------------------------------------------------- new


@app.command("new")
def new(
    drill_id: str = typer.Argument(..., metavar="ID", help="the new drill's id: lower-case words joined by '-'"),
    topic: str = typer.Option(..., "--topic", "-t", help="one of " + ", ".join(TOPICS)),
) -> None:
    """Scaffold a new drill in the first DRILL_PATH folder: a spec, a reference with one trap to
    write, and solutions/<id>/ with an ok_ and a bad_slip_ file; `drill validate` then says what is left."""
    from grader.catalogue import extra_drill_paths, spec_files

    roots = extra_drill_paths()
    if not roots:
        raise UsageError("drill new writes into the first DRILL_PATH folder, and DRILL_PATH is not set; "
                    "export DRILL_PATH=~/my-drills (a folder of your own: the built-in drills are not written to)")
    root = roots[0]
    if not root.is_dir():
        raise UsageError(f"the first DRILL_PATH folder {root} is not a folder; create it (mkdir -p {root}) or fix DRILL_PATH")
    from grader.authoring.scaffold import ScaffoldError, check_new_id, plan, write

    known = set(load_catalogue(drill_roots()).specs) | {p.stem for p in spec_files(drill_roots())}
    try:
        check_new_id(drill_id, topic, known)
        scaffold = plan(root, drill_id, topic)
        write(scaffold, drill_id, topic, root)  # all or nothing
    except ScaffoldError as exc:
        raise UsageError(printable(str(exc))) from None
    except OSError as exc:
        where = f" ({printable(exc.filename)})" if exc.filename else ""
        raise UsageError(f"cannot write the new drill under {printable(root)}: {exc.strerror or exc}{where}; "
                         f"nothing was written") from None
    typer.echo(f"drill new: wrote {drill_id}, a small drill that works, to rewrite into yours (drills/README.md):")
    for path, what in zip(scaffold.files, ("the spec", "the reference, with one trap left to write",
                                            "a solution that must pass", "a slip that must fail, naming no trap")):
        typer.echo(f"  {printable(str(path))}  {what}")
    typer.echo(f"next: drill validate {printable(str(scaffold.spec))}  (it lists what is left to fill in)")


def _progress(i: int, n: int, label: str, bar: bool) -> None:
    if bar:  # one line, narrower than the terminal (a wider one wraps, and each update starts a new line)
        columns = shutil.get_terminal_size((80, 24)).columns - 1
        count = f" {i}/{n} "
        width = max(5, min(30, columns - len(count) - 2 - 12))  # the bar shrinks first, to leave the label 12
        room = max(0, columns - width - 2 - len(count))
        name = label if len(label) <= room else label[:max(0, room - 1)] + "…" if room else ""
        filled = int(width * i / n)
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}]{count}{name:<{min(24, room)}}"[:columns + 1])
    else:
        sys.stderr.write(f"validate {i}/{n} {label}\n")
    sys.stderr.flush()
