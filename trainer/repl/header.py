"""Above the buffer: the drill's prompt and its shape ledger (folded to a title line)."""
from __future__ import annotations

from typing import Any

from trainer.repl.verdict import Fragments, mmss


def ledger_lines(spec: Any) -> list[str]:
    """Every argument and return in dimension names."""
    lines = []
    for fn in spec.functions:
        lines.append(f"{fn.name}:")
        for a in fn.args:
            if a.is_tensor:
                shape = ", ".join(a.shape or ()) + ("," if len(a.shape or ()) == 1 else "")
                dtype = {"float": "float", "mask": "bool | int64 | float32"}.get(a.dtype or "", a.dtype or "")
                lines.append(f"  {a.name:<12} ({shape})  {dtype}")
            else:
                lines.append(f"  {a.name:<12} {a.type}")
        for i, r in enumerate(fn.returns):
            label = "returns" if not fn.tuple_return else f"returns[{i}]"
            if r.is_tensor:
                shape = ", ".join(r.shape or ()) + ("," if len(r.shape or ()) == 1 else "")
                lines.append(f"  {label:<12} ({shape})  {r.dtype}")
            else:
                lines.append(f"  {label:<12} {r.type}")
    return lines


def title_fragments(spec: Any) -> Fragments:
    return [("class:title bold", f" {spec.id} "), ("class:dim", f" {spec.title} · {spec.topic} · "
                                                               f"target {mmss(spec.target_seconds)}"),
            ("class:dim", "  ^L prompt")]


def header_fragments(spec: Any) -> Fragments:
    out = title_fragments(spec)[:2] + [("", "\n")]
    for line in spec.prompt.rstrip().splitlines():
        out.append(("class:prompt", f" {line}\n"))
    ledger = ledger_lines(spec)
    if spec.dims:
        dims = "  ".join(_dim(r) for r in spec.dims.values())
        out.append(("class:dim", f" dims: {dims}\n"))
    for line in ledger:
        out.append(("class:ledger", f" {line}\n"))
    if spec.banned:
        out.append(("class:dim", " banned: " + ", ".join(spec.banned) + "\n"))
    if out and out[-1][1].endswith("\n"):
        out[-1] = (out[-1][0], out[-1][1][:-1])
    return out


def _dim(rule: Any) -> str:
    if rule.expr:
        return f"{rule.name}={rule.expr}"
    if rule.low == rule.high:
        return f"{rule.name}={rule.low}"
    return f"{rule.name}∈[{rule.low},{rule.high}]"
