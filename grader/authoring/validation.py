"""`drill validate` for one drill: the reference passes its oracle on every case,
every trap is rejected (and named as itself), the empty skeleton fails, the
coverage rules of docs/DRILLS.md hold, and the sample solutions beside the drill do
what their names say (grader.authoring.samples). Problems name file, line and field.

The tests call these same functions (tests/drills/test_drills.py,
tests/drills/test_solutions.py): this module is the one definition of a valid drill."""
from __future__ import annotations

from pathlib import Path

from grader.cases.prepare import CaseError, Prepared
from grader.engine import Grader
from grader.authoring.rounds import rounds_problems
from grader.authoring.samples import check_samples
from grader.authoring.scaffold import left_to_fill
from grader.spec import Spec
from grader.spec.userfile import REFERENCE_LIMIT, SPEC_LIMIT, UnreadableFile, read_text


def _line_for(path: Path, needle: str) -> int:
    try:
        for i, line in enumerate(read_text(path, SPEC_LIMIT).splitlines(), 1):
            if needle in line:
                return i
    except UnreadableFile:
        pass
    return 1


def coverage_problems(spec: Spec) -> list[str]:
    """The grading rules every drill must meet where its contract allows."""
    out = []
    at = lambda needle, field, msg: out.append(f"{spec.path}:{_line_for(spec.path, needle)}: {field}: {msg}")  # noqa: E731
    if "B" in spec.dims and not any(c.dims.get("B") == 1 for c in spec.cases):
        at("cases:", "cases", "needs a batch-1 case (dims: {B: 1})")
    floating = any(r.dtype in ("float", "loss") for f in spec.functions for r in f.returns if r.is_tensor)
    dtypes = {c.dtype for c in spec.cases}
    if floating and not {"float32", "float16"} <= dtypes:
        at("cases:", "cases", "floating maths needs both a float32 and a float16 case")
    if any(a.dtype == "mask" for f in spec.functions for a in f.args):
        missing = {"bool", "int64", "float32"} - {c.mask for c in spec.cases}
        if missing:
            at("cases:", "cases", f"masks must come as bool, int64 and float32; no case uses {', '.join(sorted(missing))}")
    takes_tensors = any(a.is_tensor for f in spec.functions for a in f.args)
    if takes_tensors and spec.scale is None:
        at("functions:", "scale", "declare production-like sizes for the memory check: scale: {dims: {B: 8, T: 4096, ...}}")
    if len(spec.quiz) < 2:
        at("quiz:", "quiz", "give at least two quick-fire questions")
    return out


def validate_spec(grader: Grader, spec: Spec, seed: int = 1) -> list[str]:
    """The spec alone: coverage, the reference against its oracle, the skeleton, every trap."""
    problems = coverage_problems(spec)
    try:
        ref_source = read_text(spec.reference_path, REFERENCE_LIMIT)
    except UnreadableFile as exc:
        return problems + [f"{spec.path}:1: (reference): {exc}"]
    try:
        prep = grader.prepared(spec, seed)
    except CaseError as exc:
        return problems + [f"{spec.path}:1: cases: {exc}"]
    for fp in getattr(prep.fake, "functions", []):
        if fp.device_fault:
            problems.append(f"{spec.path}:{_line_for(spec.path, fp.name + ':')}: functions.{fp.name}: {fp.why_no_device}")
    problems += reference_problems(grader, prep, ref_source)
    skeleton = grader.grade_prepared(prep, spec.skeleton(), "<skeleton>")
    if skeleton.verdict == "pass":
        problems.append(f"{spec.path}:{_line_for(spec.path, 'functions:')}: functions: the empty skeleton passes every case")
    problems += trap_problems(grader, prep, ref_source)
    return problems


def validate_drill(grader: Grader, spec: Spec, seed: int = 1) -> list[str]:
    """Everything `drill validate` proves about one drill: the spec, then its sample solutions
    (grader.authoring.samples; a drill without any is fine) and its debug rounds
    (grader.authoring.rounds). A drill `drill new` scaffolded
    with lines still marked to fill in gets those lines only: grading a stub says nothing."""
    left = left_to_fill(spec)
    if left:
        return left
    return validate_spec(grader, spec, seed) + check_samples(grader, spec, seed) + rounds_problems(grader, spec, seed)


def reference_problems(grader: Grader, prep: Prepared, ref_source: str) -> list[str]:
    """The reference passes its oracle on every case of these prepared cases."""
    spec = prep.spec
    problems = []
    report = grader.grade_prepared(prep, ref_source, str(spec.reference_path))
    for case in report.cases:
        if case.verdict != "pass":
            line = _line_for(spec.path, f"name: {case.name}")
            problems.append(f"{spec.path}:{line}: cases.{case.name}: the reference {case.function}() "
                            f"gives {case.verdict}: {case.message}")
    if report.verdict != "pass" and report.message and not report.cases:
        problems.append(f"{spec.path}:1: reference: {report.message}")
    return problems


def trap_problems(grader: Grader, prep: Prepared, ref_source: str) -> list[str]:
    """Each trap, put in place of the function it replaces, is rejected and named as itself."""
    spec = prep.spec
    problems = []
    for trap in spec.traps:
        source = ref_source + f"\n\n{trap.replaces} = {trap.function}\n"
        r = grader.grade_prepared(prep, source, str(spec.reference_path))
        line = _line_for(spec.path, f"id: {trap.id}")
        if r.verdict == "pass":
            problems.append(f"{spec.path}:{line}: traps.{trap.id}: the trap {trap.function}() passes every case; "
                            "add a case that catches it")
        elif r.trap is None or r.trap.id != trap.id:
            named = r.trap.id if r.trap else "nothing"
            problems.append(f"{spec.path}:{line}: traps.{trap.id}: rejected ({r.verdict}) but named {named}; "
                            "make a case where only this trap differs")
    return problems


def fake_checks(grader: Grader, spec: Spec, seed: int = 1) -> list[str]:
    """Per function: whether the device case and the memory-at-scale check apply, and why not."""
    from grader.fake import scale

    try:
        prep = grader.prepared(spec, seed)
    except CaseError:
        return []
    return scale.applies(prep.fake)
