"""The shape ledger: every argument and return of a drill in dimension names.

One renderer for `drill show` and the REPL header. Torch-free.
"""
from __future__ import annotations

from grader.spec import Spec
from grader.spec import shape_names as _shape

_DTYPE_WORDS = {"float": "float", "mask": "bool | int64 | float32"}


def ledger_lines(spec: Spec, *, signatures: bool = False, indent: str = "") -> list[str]:
    """One heading line per function (its name, or its full signature), then one
    line per argument and return: name, shape in dimension names, dtype."""
    lines = []
    for fn in spec.functions:
        lines.append(indent + (fn.signature() if signatures else f"{fn.name}:"))
        for a in fn.args:
            if a.is_tensor:
                lines.append(f"{indent}  {a.name:<12} {_shape(a.shape)}  {_DTYPE_WORDS.get(a.dtype or '', a.dtype or '')}")
            else:
                lines.append(f"{indent}  {a.name:<12} {a.type}")
        for i, r in enumerate(fn.returns):
            label = "returns" if not fn.tuple_return else f"returns[{i}]"
            if r.name:
                label += f" {r.name}"
            detail = f"{_shape(r.shape)}  {r.dtype}" if r.is_tensor else str(r.type)
            lines.append(f"{indent}  {label:<12} {detail}")
    return lines
