"""The oracle for dpo-loss: the formula in float64, row by row in plain Python, with -logsigmoid(x)
written as softplus(-x) = max(-x, 0) + log1p(exp(-|x|)). Kept apart from the reference so that it is an
independent check; floating arguments arrive upcast to float64 (grader/cases/prepare.py)."""
from __future__ import annotations

import math

import torch


def dpo_loss_formula(policy_chosen: torch.Tensor, policy_rejected: torch.Tensor, ref_chosen: torch.Tensor,
                     ref_rejected: torch.Tensor, chosen_mask: torch.Tensor, rejected_mask: torch.Tensor,
                     beta: float, *, loss_type: str = "sigmoid") -> torch.Tensor:
    pc, pr, rc, rr = (t.tolist() for t in (policy_chosen, policy_rejected, ref_chosen, ref_rejected))
    cm, rm = chosen_mask.tolist(), rejected_mask.tolist()
    losses = []
    for b in range(len(pc)):
        def logratio(pol, ref, mask):
            kept = [pol[b][t] - ref[b][t] for t in range(len(pol[b])) if float(mask[b][t]) != 0.0]
            return sum(kept) / len(kept) if loss_type == "ipo" else sum(kept)
        margin = logratio(pc, rc, cm) - logratio(pr, rr, rm)
        if loss_type == "ipo":
            losses.append((margin - 1.0 / (2.0 * beta)) ** 2)
        else:
            x = beta * margin
            losses.append(max(-x, 0.0) + math.log1p(math.exp(-abs(x))))
    return torch.tensor(sum(losses) / len(losses), dtype=torch.float64)
