# trap: heads-first-layout
# variant: layout=bthd
# The SDPA-layout backward from memory, applied to flash-attn's (B, T, H, dh) tensors as they come.
import math

import torch


def attention_backward(q, k, v, dout):
    scale = 1 / math.sqrt(q.shape[-1])
    p = torch.softmax(q.float() @ k.float().transpose(-2, -1) * scale, dim=-1)
    dv = p.transpose(-2, -1) @ dout.float()
    dp = dout.float() @ v.float().transpose(-2, -1)
    ds = p * (dp - (dp * p).sum(dim=-1, keepdim=True))
    dq = ds @ k.float() * scale
    dk = ds.transpose(-2, -1) @ q.float() * scale
    return dq.to(q.dtype), dk.to(q.dtype), dv.to(q.dtype)
