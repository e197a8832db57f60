# Each block attended on its own, then merged by log-sum-exp (the split-KV / ring-attention combine).
import math

import torch


def tiled_attention(q, k, v, block):
    scale = q.shape[-1] ** -0.5
    qf = q.float() * scale
    out, lse = None, None
    for j in range(0, k.shape[-2], block):
        s = torch.einsum("bhtd,bhsd->bhts", qf, k[:, :, j:j + block].float())
        blse = torch.logsumexp(s, dim=-1, keepdim=True)
        bout = torch.exp(s - blse) @ v[:, :, j:j + block].float()
        if out is None:
            out, lse = bout, blse
            continue
        new = torch.logaddexp(lse, blse)
        out = out * torch.exp(lse - new) + bout * torch.exp(blse - new)
        lse = new
    return out.to(q.dtype)
