"""`drill validate` for one drill: the reference passes its oracle on every case,
every trap is rejected (and named as itself), the empty skeleton fails, the
coverage rules of docs/DRILLS.md hold, and the sample solutions beside the drill do
what their names say (grader.authoring.samples). Under every value of every variant
axis the reference and the traps are proved again, and the memorised default answer
must fail (drills/README.md, "Variants"). Problems name file, line and field.

The reference file is graded once through the sandbox, as a solution; the reference
under a variant, the traps and the skeleton are trusted code, judged in this process
(grader.authoring.trusted); the sample solutions go through the sandbox.

The tests call these same functions (tests/drills/test_drills.py,
tests/drills/test_solutions.py): this module is the one definition of a valid drill."""
from __future__ import annotations

from pathlib import Path

from grader.cases.prepare import CaseError, Prepared
from grader.engine import Grader
from grader.authoring.builders import builder_problems
from grader.authoring.rounds import rounds_problems
from grader.authoring.samples import check_samples, jobs
from grader.authoring.scaffold import left_to_fill
from grader.authoring.trusted import bound_source, grade_trusted, reference_functions, skeleton_functions, trap_functions
from grader.report import Report
from grader.spec import Spec
from grader.spec.variants import describe, each_value
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
    for names_, size in shared_scale_sizes(spec):
        both = "both" if len(names_) == 2 else "all"
        at("scale:", "scale.dims", f"{' and '.join(names_)} are {both} {size} at scale: every dimension needs a size "
           "of its own there too, or a shape in the memory message names the wrong one (give each another production size)")
    return out


def shared_scale_sizes(spec: Spec) -> list[tuple[list[str], int]]:
    """The dimensions that share a size at the scale sizes (given, fixed and derived), as the
    cases' sizes must not (grader.dims._distinct_enough); an alias (`Y: X`) shares its dimension's."""
    if spec.scale is None:
        return []
    by_size: dict[int, list[str]] = {}
    for name, size in spec.scale.dims.items():
        rule = spec.dims.get(name)
        if rule is not None and rule.derived and rule.expr in spec.dims:
            continue
        by_size.setdefault(size, []).append(name)
    return [(names_, size) for size, names_ in by_size.items() if len(names_) > 1]


def validate_spec(grader: Grader, spec: Spec, seed: int = 1) -> list[str]:
    """The spec alone: coverage, then under the contract and under every value of every axis:
    the reference against its oracle, every trap rejected and named, and for a variant, that the
    memorised default answer fails it; under the contract, the empty skeleton fails."""
    problems = coverage_problems(spec) + kwarg_problems(spec)
    try:
        ref_source = read_text(spec.reference_path, REFERENCE_LIMIT)
    except UnreadableFile as exc:
        return problems + [f"{spec.path}:1: (reference): {exc}"]
    for choice in each_value(spec):
        under = spec.under(choice)
        try:
            prep = grader.prepared(under, seed)
        except CaseError as exc:
            problems.append(f"{spec.path}:{_variant_line(spec, choice)}: cases{_under(choice)}: {exc}")
            continue
        for fp in getattr(prep.fake, "functions", []):
            if fp.device_fault:
                problems.append(f"{spec.path}:{_line_for(spec.path, fp.name + ':')}: functions.{fp.name}"
                                f"{_under(choice)}: {fp.why_no_device}")
        if not choice:
            problems += builder_problems(prep, lambda needle: _line_for(spec.path, needle))
            problems += reference_problems(grader, prep, ref_source)  # the file itself, as a solution
            skeleton = grade_trusted(prep, skeleton_functions(prep), "<skeleton>")
            if skeleton.verdict == "pass":
                problems.append(f"{spec.path}:{_line_for(spec.path, 'functions:')}: functions: "
                                "the empty skeleton passes every case")
        else:
            problems += variant_reference_problems(prep, choice)
        problems += gradient_problems(prep, choice)
        problems += trap_problems(grader, prep, ref_source)
    return problems


def _under(choice: dict[str, str]) -> str:
    return f" (under {describe(choice)})" if choice else ""


def _variant_line(spec: Spec, choice: dict[str, str]) -> int:
    if not choice:
        return 1
    axis, value = next(iter(choice.items()))
    return _line_for(spec.path, f"{value}:") if value else _line_for(spec.path, "variants:")


def kwarg_problems(spec: Spec) -> list[str]:
    """Every keyword a variant value gives reaches the reference: a keyword no contract function of
    the reference takes would change the oracle's answer and not the reference's."""
    if not spec.variants:
        return []
    import ast

    try:
        tree = ast.parse(read_text(spec.reference_path, REFERENCE_LIMIT))
    except (UnreadableFile, SyntaxError, ValueError):
        return []  # reported where the reference is read
    taken: set[str] = set()
    wanted = {f.name for f in spec.functions}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name in wanted:
            a = node.args
            taken |= {p.arg for p in (*a.args, *a.kwonlyargs)}
            if a.kwarg is not None:
                return []
    out = []
    for axis in spec.variants:
        for v in axis.values.values():
            for kw in v.kwargs:
                if kw not in taken:
                    out.append(f"{spec.path}:{_line_for(spec.path, 'kwargs:')}: variants.{axis.name}.values.{v.name}"
                               f".kwargs.{kw}: no contract function of {spec.reference_path.name} takes {kw}=; "
                               f"write it as a keyword-only parameter whose default is {axis.default}'s behaviour")
    return out


def validate_drill(grader: Grader, spec: Spec, seed: int = 1) -> list[str]:
    """Everything `drill validate` proves about one drill: the spec, then its sample solutions
    (grader.authoring.samples; a drill without any is fine) and its debug rounds
    (grader.authoring.rounds). A drill `drill new` scaffolded
    with lines still marked to fill in gets those lines only: grading a stub says nothing."""
    from grader.sandbox import reuse

    left = left_to_fill(spec)
    if left:
        return left
    with reuse.enabled(jobs(grader, spec, seed)):  # one sandbox child grades file after file (grader.sandbox.reuse)
        found = validate_spec(grader, spec, seed) + check_samples(grader, spec, seed)
    return found + rounds_problems(grader, spec, seed)


def reference_problems(grader: Grader, prep: Prepared, ref_source: str) -> list[str]:
    """The reference file, graded as a solution (in the sandbox), passes its oracle on every case. Its
    fake-tensor runs are the plan's own (grader.fake.checks.reference_results), not run again."""
    spec = prep.spec
    known = None
    if prep.fake is not None and getattr(prep.fake, "active", False):
        from grader.fake.checks import reference_results

        known = reference_results(prep.fake)
    report = grader.grade_prepared(prep, ref_source, str(spec.reference_path), known_fake=known)
    return _failures(spec, report, "the reference")


def gradient_problems(prep: Prepared, choice: dict[str, str] | None = None) -> list[str]:
    """The reference's input gradients on each gradient case (grader.cases.gradient), held to float64
    autograd through the oracle under the same upstream gradient, with the gradient case's own tolerance
    (grader.judge.gradient): a reference whose backward is wrong would fail every right solution. A case
    whose oracle is the reference, or does not differentiate, proves nothing and says nothing."""
    from grader.cases.gradient import oracle_cases
    from grader.judge.gradient import FLOAT32_TOLERANCE, _input_problem

    spec = prep.spec
    problems = []
    names = {c.index: c.case.name for c in prep.calls}
    for ref, oracle in zip(prep.gradient, oracle_cases(prep)):
        if oracle is None:
            continue
        for name, want, got in zip(ref.names, oracle.expected, ref.expected):
            problem = _input_problem(name, want, got, FLOAT32_TOLERANCE)
            if problem:
                case = names.get(ref.index, "?")
                line = _line_for(spec.path, f"name: {case}")
                problems.append(f"{spec.path}:{line}: cases.{case}{_under(choice or {})}: the reference's gradient "
                                f"against float64 autograd through the oracle: {problem}")
    return problems


def _failures(spec: Spec, report: Report, who: str, choice: dict[str, str] | None = None) -> list[str]:
    problems = []
    for case in report.cases:
        if case.verdict != "pass":
            line = _line_for(spec.path, f"name: {case.name}")
            problems.append(f"{spec.path}:{line}: cases.{case.name}{_under(choice or {})}: {who} {case.function}() "
                            f"gives {case.verdict}: {case.message}")
    if report.verdict != "pass" and report.message and not report.cases:
        problems.append(f"{spec.path}:1: reference{_under(choice or {})}: {report.message}")
    return problems


def variant_reference_problems(prep: Prepared, choice: dict[str, str]) -> list[str]:
    """Under a variant value: the reference given its keywords passes the oracle on every case, and
    the memorised default answer (the reference called without them, as a person's solution is
    called) fails at least one case: otherwise the value does not change the answer."""
    spec = prep.spec
    problems = _failures(spec, grade_trusted(prep, reference_functions(prep), str(spec.reference_path)),
                         "the reference", choice)
    default = grade_trusted(prep, reference_functions(prep, kwargs=False), str(spec.reference_path))
    if default.verdict == "pass":
        problems.append(f"{spec.path}:{_variant_line(spec, choice)}: variants.{describe(choice)}: the reference's "
                        "default answer (called without the variant's keywords) passes every case, so this value "
                        "does not change the answer; make a case where it does, or drop the value")
    return problems


def trap_problems(grader: Grader, prep: Prepared, ref_source: str) -> list[str]:
    """Each trap that applies, put in place of the function it replaces, is rejected and named as
    itself. Judged here (grader.authoring.trusted), except a memory trap and a trap of a function with
    heavy cases, which go through the sandbox (its memory limit is what tells them)."""
    spec = prep.spec
    choice = spec.variant
    problems = []
    for trap in spec.traps:
        heavy = any(c.heavy and (not c.only or any(f in c.only for f in trap.functions)) for c in spec.cases)
        if trap.memory or heavy or trap.gradient:  # a backward trap shows on the gradient case, run in the child
            names = {fn.name: fn.name for fn in spec.functions}
            names.update(trap.functions)
            r = grader.grade_prepared(prep, bound_source(prep, ref_source, names), str(spec.reference_path))
        else:
            r = grade_trusted(prep, trap_functions(prep, trap.functions), str(spec.reference_path))
        line = _line_for(spec.path, f"id: {trap.id}")
        if r.verdict == "pass":
            problems.append(f"{spec.path}:{line}: traps.{trap.id}{_under(choice)}: the trap {trap.function}() passes "
                            "every case; add a case that catches it")
        elif r.trap is None or r.trap.id != trap.id:
            named = r.trap.id if r.trap else "nothing"
            problems.append(f"{spec.path}:{line}: traps.{trap.id}{_under(choice)}: rejected ({r.verdict}) but named "
                            f"{named}; make a case where only this trap differs")
    return problems


def fake_checks(grader: Grader, spec: Spec, seed: int = 1) -> list[str]:
    """Per function: whether the device case and the memory-at-scale check apply, and why not."""
    from grader.fake import scale

    try:
        prep = grader.prepared(spec, seed)
    except CaseError:
        return []
    return scale.applies(prep.fake)
