# FlashAttention-2's backward: P rebuilt from the saved logsumexp, the row term as rowsum(dO * O).
import math

import torch


def attention_backward(q, k, v, dout):
    dtype = q.dtype
    q, k, v, do = q.float(), k.float(), v.float(), dout.float()
    scale = q.shape[-1] ** -0.5
    s = torch.matmul(q, k.transpose(-1, -2)) * scale
    lse = torch.logsumexp(s, dim=-1, keepdim=True)  # what the forward would have saved
    p = torch.exp(s - lse)
    o = p @ v
    delta = (do * o).sum(-1, keepdim=True)  # equals rowsum(dP * P)
    dv = p.transpose(-1, -2) @ do
    ds = p * (do @ v.transpose(-1, -2) - delta)
    dq = (ds @ k) * scale
    dk = (ds.transpose(-1, -2) @ q) * scale
    return dq.to(dtype), dk.to(dtype), dv.to(dtype)
