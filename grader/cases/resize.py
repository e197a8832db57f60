"""A case's call built again at other sizes (grader.judge.smallest's candidates, `:try` on the
smallest failing case): the same case, function, dtypes and params, fresh inputs drawn from a
seed of the sizes, and the oracle's answer. Deterministic: the same sizes give the same inputs."""
from __future__ import annotations

import random

import torch

from grader.cases import generators
from grader.cases.prepare import Call, Prepared, _expected, _make_args, case_seed


def call_at(prep: Prepared, start: Call, sizes: dict[str, int], index: int = 0) -> Call | None:
    """`start`'s case at `sizes`, or None when its generators or oracle cannot build them."""
    label = f"{start.case.name}@" + ",".join(f"{k}={v}" for k, v in sorted(sizes.items()))
    rng = random.Random(case_seed(prep.seed, label))
    gen = torch.Generator().manual_seed(case_seed(prep.seed, label))
    ctx = generators.Context(gen, rng, dict(sizes), start.dtype, start.mask_dtype, start.case.params, start.case,
                             {}, {}, prep.reference)
    try:
        args = _make_args(prep.spec, start.function, ctx)
        expected = _expected(prep.spec, start.function, args, prep.reference, start.case)
    except Exception:  # noqa: BLE001 - a generator or oracle that cannot build these sizes (CaseError and others)
        return None
    return Call(index, start.case, start.function, dict(sizes), args, expected, start.dtype, start.mask_dtype)
