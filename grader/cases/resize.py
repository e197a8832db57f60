"""A case's call built again at other sizes (grader.judge.smallest's candidates, `:try` on the
smallest failing case): the same case, function, dtypes and params, fresh inputs drawn from a
seed of the sizes, and the oracle's answer. Deterministic: the same sizes give the same inputs.

No case had these sizes, so nothing says the drill's builders and oracle finish there
(a reward builder that drew until a group had spread once looped for ever at a group of one). Each build is first run in a
forked child stopped at BUILD_LIMIT (grader.cases.bounded); only one that finished there is
built here, and that under a CPU-time deadline too. One that did not is "not buildable at
these sizes": None."""
from __future__ import annotations

import random
from typing import Any, Callable, Sequence

import torch

from grader.cases import bounded, generators
from grader.cases.prepare import Call, Prepared, _expected, _make_args, case_seed, deadline

BUILD_LIMIT = bounded.Limit(cpu=1.0, wall=10.0)  # per build, at the small sizes a search tries (built-ins take ms)


def call_at(prep: Prepared, start: Call, sizes: dict[str, int], index: int = 0,
            until: float | None = None) -> Call | None:
    """`start`'s case at `sizes`, or None when its generators or oracle cannot build them."""
    return calls_at(prep, start, [sizes], index, until)[0]


def calls_at(prep: Prepared, start: Call, many: Sequence[dict[str, int]], index: int = 0,
             until: float | None = None) -> list[Call | None]:
    """`start`'s case at each of `many` sizes (indices from `index` on, one per call built), None
    where it cannot be built: its builders or oracle raise, or do not finish within BUILD_LIMIT,
    or `until` (time.monotonic()) has passed."""
    return [call for call, _ in built_at(prep, start, many, index, until)]


def built_at(prep: Prepared, start: Call, many: Sequence[dict[str, int]], index: int = 0,
             until: float | None = None) -> list[tuple[Call | None, bool]]:
    """calls_at's calls, each with whether it is known: False where `until` came first, so that
    nothing is known of the drill's builders at those sizes."""
    ran = bounded.each([_builder(prep, start, sizes) for sizes in many], BUILD_LIMIT, until)
    out: list[tuple[Call | None, bool]] = []
    for sizes, how in zip(many, ran):
        call = _build(prep, start, sizes, index) if how.done else None
        out.append((call, not how.late))
        index += call is not None
    return out


def proved(prep: Prepared, start: Call, many: Sequence[dict[str, int]], limit: bounded.Limit = BUILD_LIMIT,
           until: float | None = None) -> list[bounded.Ran]:
    """How building `start`'s case at each of `many` sizes went, in a forked child only, up to the
    first build that does not finish (`drill validate`: grader.authoring.builders)."""
    return bounded.each([_builder(prep, start, sizes) for sizes in many], limit, until, to_first_stop=True)


def _builder(prep: Prepared, start: Call, sizes: dict[str, int]) -> Callable[[], object]:
    """The child's part: the case's arguments at `sizes` (where a builder can loop). The oracle runs here
    after it, under a CPU-time deadline (_build): a child forked from a process that has run a backward
    cannot run one, and an oracle may differentiate (a backward drill's does)."""
    return lambda: _arguments(prep, start, sizes)


def _arguments(prep: Prepared, start: Call, sizes: dict[str, int]) -> list[Any]:
    label = f"{start.case.name}@" + ",".join(f"{k}={v}" for k, v in sorted(sizes.items()))
    rng = random.Random(case_seed(prep.seed, label))
    gen = torch.Generator().manual_seed(case_seed(prep.seed, label))
    ctx = generators.Context(gen, rng, dict(sizes), start.dtype, start.mask_dtype, start.case.params, start.case,
                             {}, {}, prep.reference)
    return _make_args(prep.spec, start.function, ctx)


def _build(prep: Prepared, start: Call, sizes: dict[str, int], index: int) -> Call | None:
    try:
        with deadline(BUILD_LIMIT.cpu, "not built again in time", cpu=True):
            return _make(prep, start, sizes, index)
    except Exception:  # noqa: BLE001 - a generator or oracle that cannot build these sizes (CaseError and others)
        return None


def _make(prep: Prepared, start: Call, sizes: dict[str, int], index: int) -> Call:
    args = _arguments(prep, start, sizes)
    expected = _expected(prep.spec, start.function, args, prep.reference, start.case)
    return Call(index, start.case, start.function, dict(sizes), args, expected, start.dtype, start.mask_dtype)
