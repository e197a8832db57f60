# variant: layout=bthd
# flash-attn's layout: heads moved in front for the products, the gradients moved back.
import math

import torch


def attention_backward(q, k, v, dout):
    q, k, v, do = (t.transpose(1, 2).float() for t in (q, k, v, dout))  # (B, H, *, dh)
    scale = 1 / math.sqrt(q.shape[-1])
    p = (q @ k.transpose(-2, -1) * scale).softmax(-1)
    dv = p.transpose(-2, -1) @ do
    dp = do @ v.transpose(-2, -1)
    ds = p * (dp - (p * dp).sum(-1, keepdim=True))
    dq = ds @ k * scale
    dk = ds.transpose(-2, -1) @ q * scale
    dt = dout.dtype
    return dq.transpose(1, 2).to(dt), dk.transpose(1, 2).to(dt), dv.transpose(1, 2).to(dt)
