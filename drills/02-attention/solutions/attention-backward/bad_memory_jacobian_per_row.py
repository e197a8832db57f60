# The softmax Jacobian written out, diag(p) - p p^T per query row: right values, and a (B, H, T, S, S) tensor (memory).
import math

import torch


def attention_backward(q, k, v, dout):
    scale = 1.0 / math.sqrt(q.shape[-1])
    qf, kf, vf, do = (t.double() for t in (q, k, v, dout))
    p = torch.softmax(qf @ kf.mT * scale, dim=-1)  # (B, H, T, S)
    jac = torch.diag_embed(p) - p[..., :, None] * p[..., None, :]  # (B, H, T, S, S)
    dp = do @ vf.mT
    ds = (jac @ dp[..., None]).squeeze(-1)
    dq = ds @ kf * scale
    dk = ds.mT @ qf * scale
    dv = p.mT @ do
    return dq.to(q.dtype), dk.to(q.dtype), dv.to(q.dtype)
