"""The oracle for grad-accumulation: the formula in float64 as plain Python loops over the micro-batches,
sequences and tokens. Kept apart from the reference so that it is an independent check; arguments come
with floating tensors upcast to float64 (grader/cases/prepare.py)."""
from __future__ import annotations

import torch


def micro_batch_losses_loop(losses: torch.Tensor, mask: torch.Tensor, *, unit: str = "token") -> torch.Tensor:
    """Entry i: micro-batch i's share of the global loss. token: its masked sum over the loss tokens of all
    N micro-batches; sequence: the sum of its sequences' token means over the number of sequences with a
    token in all N micro-batches. Nothing to divide (no token at all): zeros."""
    N, B, T = losses.shape
    vals = losses.tolist()
    keep = [[[float(v) != 0.0 for v in row] for row in mb] for mb in mask.tolist()]
    sums = [0.0] * N
    units = 0
    for i in range(N):
        for b in range(B):
            tokens = [vals[i][b][t] for t in range(T) if keep[i][b][t]]
            if unit == "sequence":
                if tokens:
                    sums[i] += sum(tokens) / len(tokens)
                    units += 1
            else:
                sums[i] += sum(tokens)
                units += len(tokens)
    return torch.tensor([s / units if units else 0.0 for s in sums], dtype=torch.float64)
