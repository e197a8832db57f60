# trap: none
# dv = P dO without the transpose: an error whenever T != S, the wrong sum when T == S.
import math

import torch


def attention_backward(q, k, v, dout):
    scale = 1 / math.sqrt(q.shape[-1])
    p = torch.softmax(q @ k.transpose(-2, -1) * scale, dim=-1)
    dv = p @ dout
    dp = dout @ v.transpose(-2, -1)
    ds = p * (dp - (dp * p).sum(dim=-1, keepdim=True))
    return ds @ k * scale, ds.transpose(-2, -1) @ q * scale, dv
