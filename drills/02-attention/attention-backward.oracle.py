"""The oracle for attention-backward: torch.autograd.grad through SDPA's forward in float64.

Kept apart from the reference so that it is an independent check (drills/README.md); it also shows
the grader SDPA's kernels, so that the ban on SDPA holds at the dispatcher for its backward too.
Arguments come with floating tensors upcast to float64."""
from __future__ import annotations

import torch
import torch.nn.functional as F


def sdpa_autograd(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, dout: torch.Tensor, *,
                  layout: str = "bhtd") -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(dq, dk, dv) of sum(out * dout) for out = SDPA(q, k, v), no mask, the default 1/sqrt(dh) scale;
    `layout` bthd: (B, T, H, dh) in and out."""
    with torch.enable_grad():
        q, k, v = (t.detach().double().requires_grad_(True) for t in (q, k, v))
        if layout == "bthd":
            out = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2))
            out = out.transpose(1, 2)
        else:
            out = F.scaled_dot_product_attention(q, k, v)
        dq, dk, dv = torch.autograd.grad(out, (q, k, v), dout.detach().double())
    return dq, dk, dv
