"""Drill specs: YAML -> frozen dataclasses, validated by one schema.

Every problem in a file is collected and reported together; each names the
file, the line and the field (``drills/02-attention/my-drill.yaml:14:
cases[2].dims: unknown dimension 'Q'``). Unknown keys are errors.

The package: `records` (the dataclasses), `yaml_lines` (YAML that remembers
lines), `schema` (the keys and kinds, once, and the JSON Schema built from
them), `reader` (schema-backed typed access), `parts` and `parse` (the
parser), `names` (the generators and oracles a spec may name, read
from their code without importing torch)
`case_id` (a case's generation fingerprint) and `variants` (variant axes: parsing,
`under()`, `--variant` arguments). The catalogue of every spec
is `grader.catalogue`, a layer above: it imports this package, never the other way.

This package must stay free of torch: `drill list` and `drill show` use it. The
parser is imported from `grader.spec.parse`, not from here: `drill list` reads the
cached catalogue and should not pay for loading the parser and its YAML reader.
"""
from __future__ import annotations

from grader.dims import check_expr, eval_expr, expr_names
from grader.spec.records import (
    FLOAT_DTYPES,
    ID_RE,
    MASK_DTYPES,
    MAX_NUMBER,
    MAX_TARGET_SECONDS,
    MAX_TIMEOUT,
    NAME_RE,
    PY_TYPES,
    TENSOR_DTYPES,
    TOPICS,
    ArgSpec,
    Axis,
    CaseSpec,
    DimRule,
    FunctionSpec,
    Invariant,
    Quiz,
    ReturnSpec,
    ScaleSpec,
    Spec,
    SpecError,
    Tolerance,
    Trap,
    VariantTraps,
    VariantValue,
    shape_names,
)

__all__ = [
    "FLOAT_DTYPES", "ID_RE", "MASK_DTYPES", "MAX_NUMBER", "MAX_TARGET_SECONDS", "MAX_TIMEOUT", "NAME_RE",
    "PY_TYPES", "TENSOR_DTYPES", "TOPICS", "ArgSpec", "Axis", "CaseSpec", "DimRule", "FunctionSpec",
    "Invariant", "Quiz", "ReturnSpec", "ScaleSpec", "Spec", "SpecError", "Tolerance", "Trap", "VariantTraps", "VariantValue",
    "check_expr", "eval_expr", "expr_names", "shape_names",
]
