"""The oracle for sampling-filter: one row at a time, in float64, with Python lists.

Kept apart from the reference so that it is an independent check; every public function here is an
oracle the spec can name (drills/README.md). Arguments come with floating tensors upcast to float64
(grader/cases/prepare.py)."""
from __future__ import annotations

import math

import torch


def filter_rows(logits: torch.Tensor, temperature: torch.Tensor, top_k: torch.Tensor, min_p: torch.Tensor, *,
                order: str = "temp-first") -> torch.Tensor:
    """Per row: z = logits / t; the scores filtered are z (temp-first) or the raw logits (temp-last);
    top-k keeps every score >= the k-th largest (k = 0: all); min-p keeps the probabilities of a softmax of
    the scores that reach min_p times the largest one; the kept z, the rest -inf."""
    out = []
    for row, t, k, mp in zip(logits.tolist(), temperature.tolist(), top_k.tolist(), min_p.tolist()):
        z = [x / t for x in row]
        s = z if order == "temp-first" else row
        kth = sorted(s, reverse=True)[k - 1] if k > 0 else -math.inf
        top = max(s)
        total = sum(math.exp(x - top) for x in s)
        probs = [math.exp(x - top) / total for x in s]
        p_max = max(probs)
        out.append([zi if (si >= kth and pi >= mp * p_max) else -math.inf
                    for zi, si, pi in zip(z, s, probs)])
    return torch.tensor(out, dtype=torch.float64)
