"""`drill validate`: the drill's input builders and oracle finish at every size the smallest-case
search may ask for (grader.judge.smallest), not only at the cases' own.

The search builds a failing case again at smaller sizes; a builder that loops there hung
`drill check` (a reward builder that drew until a group had spread once did, at a group of one). So each case is built at the
floor of every dimension's range, and at every size of each range with the others at their
floors, each build in a forked child stopped at grader.cases.resize.BUILD_LIMIT (CPU time, so a
loaded machine fails no builder). A build that does not finish is a problem; one that raises
is one too, since the range in the spec says those sizes are allowed."""
from __future__ import annotations

from typing import Any

from grader.cases import resize
from grader.cases.prepare import Prepared
from grader.judge.smallest import sizes_to_prove


def builder_problems(prep: Prepared, line_of: Any) -> list[str]:
    """One problem per case and function whose build did not finish or raised at a size it may be
    asked for; `line_of(needle)` is the spec's line that holds `needle`."""
    spec = prep.spec
    problems: list[str] = []
    seen: set[tuple] = set()
    for call in prep.calls:
        key = (call.function.name, call.case.dtype, call.case.mask, repr(sorted(call.case.params.items())),
               repr(sorted(call.case.dims.items())))
        if key in seen:  # the same builders on the same terms: proved once
            continue
        seen.add(key)
        many = sizes_to_prove(prep, call)
        for sizes, ran in zip(many, resize.proved(prep, call, many)):
            if ran.done:
                continue
            what = (f"does not finish: {ran.why} (a loop in an input builder or the oracle?)" if ran.stopped
                    else ran.why)
            where = ", ".join(f"{k}={v}" for k, v in sizes.items())
            problems.append(f"{spec.path}:{line_of(call.case.name)}: cases.{call.case.name} ({call.function.name}): "
                            f"built at {where}, sizes its dims ranges allow, it {what}")
            break  # the first size that fails says it; the author fixes the builder and runs validate again
    return problems
