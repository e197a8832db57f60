"""The oracle for speculative-accept: one row at a time, in float64, with Python lists.

Kept apart from the reference so that it is an independent check; every public function here is an
oracle the spec can name (drills/README.md). Arguments come with floating tensors upcast to float64
(grader/cases/prepare.py)."""
from __future__ import annotations

import torch


def accept_loop(draft_tokens: torch.Tensor, q: torch.Tensor, p: torch.Tensor, u: torch.Tensor, *,
                mode: str = "sample") -> tuple[torch.Tensor, torch.Tensor]:
    """Walk the drafts of each row in order and stop at the first that fails (sample: u > p(x)/q(x);
    greedy: x is not the target's argmax); next_probs: the bonus p[K] when all pass, else the residual
    max(0, p - q) at the failing position divided by its sum (greedy: one-hot at the argmax of p there)."""
    ns, rows = [], []
    K = q.shape[1]
    for xs, qb, pb, ub in zip(draft_tokens.tolist(), q.tolist(), p.tolist(), u.tolist()):
        n = 0
        while n < K:
            x = xs[n]
            if mode == "greedy":
                ok = x == max(range(len(pb[n])), key=lambda v: pb[n][v])
            else:
                ok = ub[n] <= pb[n][x] / qb[n][x]
            if not ok:
                break
            n += 1
        target = pb[n]
        if mode == "greedy":
            top = max(range(len(target)), key=lambda v: target[v])
            row = [1.0 if v == top else 0.0 for v in range(len(target))]
        elif n == K:
            row = list(target)
        else:
            res = [max(0.0, a - c) for a, c in zip(target, qb[n])]
            total = sum(res)
            row = [r / total for r in res]
        ns.append(n)
        rows.append(row)
    return torch.tensor(ns, dtype=torch.int64), torch.tensor(rows, dtype=torch.float64)
