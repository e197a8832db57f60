# trap: none
# The row term summed over the queries (dim -2) instead of over each query's keys.
import math

import torch


def attention_backward(q, k, v, dout):
    scale = 1 / math.sqrt(q.shape[-1])
    p = torch.softmax(q @ k.transpose(-2, -1) * scale, dim=-1)
    dv = p.transpose(-2, -1) @ dout
    dp = dout @ v.transpose(-2, -1)
    ds = p * (dp - (dp * p).sum(dim=-2, keepdim=True))
    return ds @ k * scale, ds.transpose(-2, -1) @ q * scale, dv
