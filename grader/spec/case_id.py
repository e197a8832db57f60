"""A case's id: its name and a fingerprint of what decides its tensors, as
``name@1a2b3c4d`` (exercism's `reimplements`: a case whose generation changes
is a new case, not the old one with other numbers).

What goes in, normalised to sorted JSON: the case's name (its random stream
is seeded from it), sizes, dtype, mask dtype, params and `only`; every
dimension rule of the spec (sizes are drawn from all of them); and, for each
function the case applies to, its name, oracle, `inputs` and every argument's
shape, dtype, type, generator, value, param and options. What does not change
the tensors does not change the id: the description, `heavy`, `timeout`,
tolerances, traps, prose, comments and the order of keys in the file.
"""
from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # only to annotate: Spec.under (grader.spec.variant_apply) computes case ids
    from grader.spec.records import CaseSpec, DimRule, FunctionSpec

ID_DIGITS = 8


def generation(case: CaseSpec, dims: dict[str, DimRule], functions: tuple[FunctionSpec, ...]) -> dict[str, Any]:
    """The normalised definition of how ``case``'s calls are generated."""
    applies = [f for f in functions if not case.only or f.name in case.only]
    return {
        "case": {"name": case.name, "dims": case.dims, "dtype": case.dtype, "mask": case.mask,
                 "params": case.params, "only": sorted(case.only)},
        "dims": {n: [r.low, r.high, r.expr] for n, r in sorted(dims.items())},
        "functions": [{"name": f.name, "oracle": f.oracle, "inputs": f.inputs,
                       "args": [[a.name, a.shape, a.dtype, a.type, a.gen, a.value, a.param, a.options] for a in f.args]}
                      for f in applies],
    }


def _plain(value: Any) -> Any:
    """Dicts with text keys and lists all the way down, so any spec value serialises."""
    if isinstance(value, dict):
        return {f"{type(k).__name__}:{k}": _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def case_id(case: CaseSpec, dims: dict[str, DimRule], functions: tuple[FunctionSpec, ...],
            variant: dict[str, str] | None = None) -> str:
    """``name@`` and 8 hex digits of the sha256 of the case's generation; under a variant (its
    non-default choices, grader.spec.variants) the choices go in too, since the oracle's keyword
    arguments change the expected values. The default's ids are those of the spec as written."""
    gen = generation(case, dims, functions)
    if variant:
        gen["variant"] = dict(sorted(variant.items()))
    text = json.dumps(_plain(gen), sort_keys=True, default=repr, separators=(",", ":"))
    return f"{case.name}@{hashlib.sha256(text.encode()).hexdigest()[:ID_DIGITS]}"
