# device: the row sum taken as a product with a ones vector made on the CPU
import math

import torch


def attention_backward(q, k, v, dout):
    S = k.shape[-2]
    scale = 1 / math.sqrt(q.shape[-1])
    p = torch.softmax(q @ k.transpose(-2, -1) * scale, dim=-1)
    dv = p.transpose(-2, -1) @ dout
    dp = dout @ v.transpose(-2, -1)
    ones = torch.ones(S, 1, dtype=q.dtype)
    ds = p * (dp - (dp * p) @ ones)
    return ds @ k * scale, ds.transpose(-2, -1) @ q * scale, dv
