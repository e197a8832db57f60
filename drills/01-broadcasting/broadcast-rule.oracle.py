"""The oracle for broadcast-rule: torch's own broadcast_shapes.

Kept apart from the reference so that it is an independent check; every public function
here is an oracle the spec can name (drills/README.md). Arguments come with floating
tensors upcast to float64 (grader/cases/prepare.py)."""
from __future__ import annotations

import torch


def broadcast_shapes(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    """torch.broadcast_shapes, with an incompatible pair raised as ValueError."""
    try:
        out = torch.broadcast_shapes(tuple(a), tuple(b))
    except RuntimeError as exc:
        raise ValueError(str(exc)) from None
    return tuple(int(s) for s in out)
