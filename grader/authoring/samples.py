"""A drill's sample solutions, checked by `drill validate`.

They live beside the drill, as exercism keeps `.meta/` beside each exercise:
`<folder>/solutions/<id>/` next to `<folder>/<id>.yaml`, for a built-in drill
and for a `DRILL_PATH` drill alike, so an author gets the same check either
way. The file name says what a file must do, and its first line may say more:

- `ok_*.py` passes every case (other routes: einsum, loops, numpy inside);
- `bad_*.py` fails; a first line `# trap: <id>` must be named as that trap of
  the drill, `# trap: none` must be named as no trap at all (a trap named for
  it would teach a false lesson); `bad_slip_*.py` start with `# trap: none`;
- `bad_device_*.py` pass every real case and fail the device case (fake CUDA
  inputs), with a message that says `device=x.device`;
- `bad_memory_*.py` fail the memory-at-scale check, the reference's growth or peak beside theirs.
- `bad_gradient_*.py` pass every real case and fail the gradient case (a NumPy round trip,
  `.detach()`, a NaN hidden in the forward): right values, a backward that cannot train.
- a `# trap: none` file with a top comment line `# partial: <id>` has two mistakes, one of
  them the trap's: no trap may be named, and the report's partial match
  (grader.report.PartialMatch) must be that trap;
- a top comment line `# variant: axis=value ...` grades the file under that variant
  (drills/README.md, "Variants"); an `ok_` file without one, in a drill with variants,
  must also fail some other value, and every non-default value needs an `ok_` file.

Each problem is one line, `file:line: (solution): what went wrong`, like the
spec's problems. A drill without a solutions folder has nothing to check.
Files come from an author's folder, so they are read with the capped readers.
"""
from __future__ import annotations

import contextlib
import dataclasses
from pathlib import Path
from typing import Any

from grader.cases.prepare import CaseError
from grader.engine import Grader
from grader.errors import UsageError
from grader.report import CaseKind, Report
from grader.spec import Spec
from grader.spec.variants import RANDOM, describe, each_value, parse_variant_args
from grader.spec.userfile import SOLUTION_LIMIT, UnreadableFile, read_source

FIELD = "(solution)"
SLIP = "none"


def folder(spec: Spec) -> Path:
    """Where the drill's sample solutions live: `solutions/<id>/` beside its spec."""
    return Path(spec.path).parent / "solutions" / spec.id


def files(spec: Spec) -> list[Path]:
    """The drill's sample solution files, sorted (none when it has no solutions folder)."""
    where = folder(spec)
    if not where.is_dir():
        return []
    return sorted(p for p in where.glob("*.py"))


def expected_trap(source: str) -> str | None:
    """The trap id after `# trap:` on the first line, "none" for a slip, "" when the line names
    nothing, None when there is no such line."""
    first = source.splitlines()[:1]
    if not first or not first[0].startswith("# trap:"):
        return None
    words = first[0].split(":", 1)[1].split()
    return words[0] if words else ""


def expected_partial(source: str) -> str | None:
    """The trap id after `# partial:` on one of the file's top comment lines ("" when it names
    nothing, None when there is no such line)."""
    for line in source.splitlines():
        if not line.startswith("#"):
            break
        if line.startswith("# partial:"):
            words = line.split(":", 1)[1].split()
            return words[0] if words else ""
    return None


def _first_failure(report: Report) -> str:
    bad = [c for c in report.cases if c.verdict != "pass"]
    if not bad:
        return (report.message.splitlines() or [str(report.verdict)])[0]
    case = bad[0]
    message = case.message.splitlines()[0] if case.message else ""
    return f"case {case.name}, {case.function}(): {case.verdict}" + (f": {message}" if message else "")


def header_problems(spec: Spec, path: Path, source: str) -> list[str]:
    """What the file's name and first line promise, checked before grading."""
    at = f"{path}:1: {FIELD}:"
    name = path.name
    if not (name.startswith("ok_") or name.startswith("bad_")):
        return [f"{at} name sample solutions ok_*.py (must pass) or bad_*.py (must fail)"]
    trap = expected_trap(source)
    out = []
    if trap == "":
        out.append(f"{at} `# trap:` names no trap; write `# trap: <id>` or `# trap: none`")
    elif trap is not None and trap != SLIP and trap not in {t.id for t in spec.traps}:
        known = ", ".join(t.id for t in spec.traps) or "none"
        out.append(f"{at} `# trap: {trap}` is not a trap of {spec.id} (its traps: {known})")
    if name.startswith("bad_slip_") and trap != SLIP:
        out.append(f"{at} a bad_slip_ file starts with `# trap: none`")
    partial = expected_partial(source)
    if partial is not None:
        if trap != SLIP or not name.startswith("bad_"):
            out.append(f"{at} `# partial:` belongs to a bad_ file whose first line is `# trap: none`")
        elif partial not in {t.id for t in spec.traps}:
            known = ", ".join(t.id for t in spec.traps) or "none"
            out.append(f"{at} `# partial: {partial}` is not a trap of {spec.id} (its traps: {known})")
    return out


def report_problems(path: Path, source: str, report: Report) -> list[str]:
    """What the grader's report says against the file's name and first line."""
    at = f"{path}:1: {FIELD}:"
    name = path.name
    if name.startswith("ok_"):
        if report.verdict != "pass":
            failing = sum(1 for c in report.cases if c.verdict != "pass")
            what = f"fails {failing} case(s); first" if failing else f"gives {report.verdict}"
            return [f"{at} an ok_ file must pass, but it {what}: {_first_failure(report)}"]
        return []
    if report.verdict == "pass":
        return [f"{at} a bad_ file must fail, but it passes every case"]
    out = []
    trap = expected_trap(source)
    named = report.trap.id if report.trap else None
    if trap == SLIP and named is not None:
        out.append(f"{at} `# trap: none`, but the report names the trap {named}; a slip must name no trap")
    elif trap and trap != SLIP and named != trap:
        out.append(f"{at} `# trap: {trap}`, but the report names {named or 'no trap'}; "
                   f"first: {_first_failure(report)}")
    partial = expected_partial(source)
    partly = report.partial_trap.id if report.partial_trap else None
    if partial and trap == SLIP and named is None and partly != partial:
        out.append(f"{at} `# partial: {partial}`, but the report's partial match is {partly or 'none'}; "
                   f"first: {_first_failure(report)}")
    if name.startswith("bad_device_"):
        out.extend(_device_problems(at, report))
    if name.startswith("bad_gradient_"):
        out.extend(_gradient_problems(at, report))
    if name.startswith("bad_memory_"):
        scale = [c for c in report.cases if c.kind == CaseKind.SCALE]  # one per function; any may be the one
        res = next((c for c in scale if c.verdict == "memory"), scale[0] if scale else None)
        if res is None or res.verdict != "memory" or "the reference" not in res.message:
            got = f"{res.verdict}: {res.message.splitlines()[0] if res.message else ''}" if res else "no scale check ran"
            out.append(f"{at} a bad_memory_ file must fail the memory-at-scale check; got {got}")
    return out


def _gradient_problems(at: str, report: Report) -> list[str]:
    """bad_gradient_*: right in the forward, wrong in the backward (grader.judge.gradient)."""
    gradient = [c for c in report.cases if c.kind == CaseKind.GRADIENT and c.verdict != "pass"]
    real = [c for c in report.cases if c.kind.leads and c.verdict != "pass"]
    if real:
        return [f"{at} a bad_gradient_ file must pass every real case; it fails {real[0].name} ({real[0].verdict})"]
    if not gradient:
        return [f"{at} a bad_gradient_ file must fail the gradient case; it does not (first: {_first_failure(report)})"]
    return []


def _device_problems(at: str, report: Report) -> list[str]:
    """bad_device_*: correct on a CPU, mixes CPU tensors with GPU inputs (the device case, grader.fake)."""
    device = [c for c in report.cases if c.kind == CaseKind.DEVICE and c.verdict == "error"]
    if not device:
        return [f"{at} a bad_device_ file must fail the device case with an error; it does not "
                f"(first: {_first_failure(report)})"]
    out = []
    if "device=x.device" not in device[0].message:
        out.append(f"{at} the device case fails, but its message does not say device=x.device")
    real = [c for c in report.cases if c.kind.leads and c.verdict != "pass"]
    if real:
        out.append(f"{at} a bad_device_ file must pass every real case; it fails {real[0].name} "
                   f"({real[0].verdict})")
    return out


def variant_header(source: str) -> list[str] | None:
    """The words after `# variant:` on one of the file's top comment lines (None when there is none)."""
    for line in source.splitlines():
        if not line.startswith("#"):
            break
        if line.startswith("# variant:"):
            return line.split(":", 1)[1].split()
    return None


def sample_variant(spec: Spec, path: Path, source: str) -> tuple[dict[str, str] | None, list[str]]:
    """The variant a sample is written for ({} for the default) and the problems of its header."""
    words = variant_header(source)
    if words is None:
        return {}, []
    at = f"{path}:1: {FIELD}:"
    if not words or RANDOM in words:
        return None, [f"{at} `# variant:` names no variant; write `# variant: axis=value`"]
    try:
        chosen = parse_variant_args(spec, words)
    except UsageError as exc:
        return None, [f"{at} `# variant: {' '.join(words)}`: {exc}"]
    if not chosen:
        return None, [f"{at} `# variant: {' '.join(words)}` is the default; leave the line out"]
    return chosen, []


def check_file(grader: Grader, spec: Spec, path: Path, seed: int = 1) -> list[str]:
    """One sample solution against its name and first lines: problems, one line each."""
    return _check_file(grader, spec, path, seed)[0]


def _check_file(grader: Grader, spec: Spec, path: Path, seed: int) -> tuple[list[str], dict[str, str] | None]:
    """(problems, the variant it passes as an ok_ file, None when it is not one that passes)."""
    try:
        source = read_source(path, SOLUTION_LIMIT)
    except UnreadableFile as exc:
        return [f"{path}:1: {FIELD}: {exc.reason}"], None
    chosen, bad = sample_variant(spec, path, source)
    # a `# trap:` line names a trap of the variant the file is written for (one a value adds, too)
    problems = header_problems(spec.under(chosen) if chosen else spec, path, source)
    if problems or bad or chosen is None:
        return problems + bad, None
    report = _grade(grader, spec.under(chosen), path, source, seed)
    if isinstance(report, str):
        return [report], None
    problems = report_problems(path, source, report)
    if chosen:
        problems = [p.replace(f"{FIELD}:", f"{FIELD}: under {describe(chosen)},", 1) for p in problems]
    passes = path.name.startswith("ok_") and report.verdict == "pass"
    if passes and not chosen and spec.variants:
        problems += _changes_answer(grader, spec, path, source, seed)
    return problems, (chosen if passes else None)


def _grade(grader: Grader, spec: Spec, path: Path, source: str, seed: int, real_only: bool = False) -> Report | str:
    """The file's report under `spec`; with `real_only`, on the real cases alone (no device case or
    memory at scale: the fake-tensor runs are most of a sandbox run's time)."""
    try:
        prep = grader.prepared(spec, seed)
    except CaseError as exc:
        return f"{path}:1: {FIELD}: the cases could not be built: {exc}"
    if real_only:
        prep = dataclasses.replace(prep, fake=None)
    return grader.grade_prepared(prep, source, str(path))


def _changes_answer(grader: Grader, spec: Spec, path: Path, source: str, seed: int) -> list[str]:
    """An ok_ file written for the default must fail some other value: the values change the answer,
    so it must fail a real case there (the device case and memory at scale say nothing of the answer)."""
    tried = []
    for choice in each_value(spec)[1:]:
        report = _grade(grader, spec.under(choice), path, source, seed, real_only=True)
        if isinstance(report, str):
            return [report]
        if report.verdict != "pass":
            return []
        tried.append(describe(choice))
    return [f"{path}:1: {FIELD}: an ok_ file for the default must fail some variant value, but it passes "
            f"every one ({', '.join(tried)}): the values do not change this answer"]


def jobs(grader: Grader, spec: Spec, seed: int) -> list[tuple[Any, Any]]:
    """The sandbox jobs `drill validate` grades a drill's files in (grader.sandbox.reuse: one child can
    serve them all): the contract's and each variant value's, with the fake-tensor runs and on the
    real cases alone (the reference file, whose fake runs its plan made; _changes_answer). A value
    whose cases cannot be built is left to its own report."""
    out = []
    for choice in each_value(spec):
        try:
            prep = grader.prepared(spec.under(choice) if choice else spec, seed)
        except CaseError:
            continue
        out.append(grader.job_for(prep))
        out.append(grader.job_for(prep, fake=False))
    return out


def check_samples(grader: Grader, spec: Spec, seed: int = 1) -> list[str]:
    """Every sample solution of the drill (none is fine); with variants, every non-default value has
    an ok_ sample that passes it."""
    from grader.sandbox import reuse

    problems: list[str] = []
    covered: set[tuple[str, str]] = set()
    paths = files(spec)
    known = reuse.REUSE.on  # inside validate_drill's block, given these jobs: one child grades file after file
    with contextlib.nullcontext() if known else reuse.enabled(jobs(grader, spec, seed) if paths else []):
        for path in paths:
            found, passes = _check_file(grader, spec, path, seed)
            problems.extend(found)
            covered |= set((passes or {}).items())
    if paths or spec.variants:
        for axis in spec.variants:
            for value in axis.others():
                if (axis.name, value) not in covered:
                    problems.append(f"{folder(spec)}:1: {FIELD}: no ok_ sample passes {axis.name}={value}; write one "
                                    f"whose top lines say `# variant: {axis.name}={value}`")
    return problems
