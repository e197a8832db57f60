"""`drill validate` for a drill's debug rounds (grader.rounds): the file holds
together, each base passes, and each round's planted code fails with its trap
named. The code is the author's, like the reference, so it is graded in this
process (grader.authoring.trusted). Problems are one line each, naming the file.
"""
from __future__ import annotations

from grader import rounds as rounds_mod
from grader.authoring.trusted import grade_source as grade_trusted
from grader.cases.prepare import CaseError
from grader.engine import Grader
from grader.spec import Spec

MIN_TRAPS = 3  # a drill's rounds cover at least this many of its traps (or all, when it has fewer)


def rounds_problems(grader: Grader, spec: Spec, seed: int = 1) -> list[str]:
    """Every problem with the drill's rounds file (none when it has no such file)."""
    try:
        found = rounds_mod.load(spec.path, spec.id)
    except rounds_mod.RoundsError as exc:
        return list(exc.lines)
    if found is None:
        return []
    at = f"{found.path}:1: rounds:"
    known = {t.id for t in spec.traps}
    problems = [f"{at} {r.trap!r} is not a trap of {spec.id} (its traps: {', '.join(sorted(known))})"
                for r in found.rounds if r.trap not in known]
    covered = set(found.traps()) & known
    if len(covered) < min(MIN_TRAPS, len(known)):
        problems.append(f"{at} the rounds plant {len(covered)} of the drill's traps; plant at least "
                        f"{min(MIN_TRAPS, len(known))}")
    if problems:
        return problems
    try:
        prep = grader.prepared(spec, seed)
    except CaseError as exc:
        return [f"{at} the cases could not be built: {exc}"]
    for name, code in found.bases.items():
        report = grade_trusted(prep, code, f"<base {name}>")
        if report.verdict != "pass":
            bad = report.failing[0] if report.failing else None
            why = f"{bad.name}: {bad.verdict}: {bad.message.splitlines()[0] if bad.message else ''}" if bad \
                else report.message
            problems.append(f"{at} the base {name!r} must pass, but it gives {report.verdict} ({why})")
    for i, rnd in enumerate(found.rounds):
        planted = rounds_mod.planted(found, rnd)
        report = grade_trusted(prep, planted.code, f"<round {i} {rnd.trap}>")
        named = report.trap.id if report.trap else None
        if report.verdict == "pass":
            problems.append(f"{at} rounds[{i}] ({rnd.trap}): the planted code passes every case")
        elif named != rnd.trap:
            problems.append(f"{at} rounds[{i}] ({rnd.trap}): the planted code fails ({report.verdict}) but the "
                            f"report names {named or 'no trap'}")
    return problems
