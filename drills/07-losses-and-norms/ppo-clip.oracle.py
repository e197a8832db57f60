"""The oracle for ppo-clip: the clipped surrogate in float64, token by token in plain Python (math.exp
on the kept tokens only). Kept apart from the reference so that it is an independent check; floating
arguments arrive upcast to float64 (grader/cases/prepare.py)."""
from __future__ import annotations

import math

import torch


def ppo_clip_loss_loop(logp: torch.Tensor, old_logp: torch.Tensor, adv: torch.Tensor, mask: torch.Tensor,
                       eps_low: float = 0.2, eps_high: float = 0.2, *, agg: str = "token-mean") -> torch.Tensor:
    B, T = logp.shape
    lp, olp, a, m = logp.tolist(), old_logp.tolist(), adv.tolist(), mask.tolist()
    total, tokens, seq_total, seqs = 0.0, 0, 0.0, 0
    for b in range(B):
        row, n = 0.0, 0
        for t in range(T):
            if float(m[b][t]) == 0.0:
                continue
            ratio = math.exp(lp[b][t] - olp[b][t])
            clipped = min(max(ratio, 1.0 - eps_low), 1.0 + eps_high)
            row += max(-a[b][t] * ratio, -a[b][t] * clipped)
            n += 1
        total, tokens = total + row, tokens + n
        if n:
            seq_total, seqs = seq_total + row / n, seqs + 1
    if agg == "seq-mean-token-mean":
        return torch.tensor(seq_total / max(seqs, 1), dtype=torch.float64)
    return torch.tensor(total / max(tokens, 1), dtype=torch.float64)
