"""The oracle for moe-aux-loss: a counting loop in float64, in plain Python: each token's softmax with
math.exp, its top k experts by sorting, a count per expert. Kept apart from the reference so that it is
an independent check; floating arguments arrive upcast to float64 (grader/cases/prepare.py)."""
from __future__ import annotations

import math

import torch


def load_balancing_loss_loop(router_logits: torch.Tensor, k: int, *, norm: str = "hf") -> torch.Tensor:
    rows = router_logits.tolist()
    N, E = len(rows), len(rows[0])
    counts = [0] * E
    prob_sums = [0.0] * E
    for row in rows:
        top = max(row)
        exps = [math.exp(v - top) for v in row]
        z = sum(exps)
        for e in range(E):
            prob_sums[e] += exps[e] / z
        for e in sorted(range(E), key=lambda j: row[j], reverse=True)[:k]:
            counts[e] += 1
    per_token = k if norm == "megatron" else 1
    loss = E * sum(counts[e] / (N * per_token) * prob_sums[e] / N for e in range(E))
    return torch.tensor(loss, dtype=torch.float64)
