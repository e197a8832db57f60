# trap: dk-from-ds
# dk written by symmetry with dq, without the transpose.
import math

import torch


def attention_backward(q, k, v, dout):
    scale = 1 / math.sqrt(q.shape[-1])
    p = torch.softmax(torch.matmul(q, k.transpose(-2, -1)) * scale, dim=-1)
    dv = torch.matmul(p.transpose(-2, -1), dout)
    dp = torch.matmul(dout, v.transpose(-2, -1))
    ds = p * (dp - (dp * p).sum(dim=-1, keepdim=True))
    dq = torch.matmul(ds, k) * scale
    dk = torch.matmul(ds, q) * scale
    return dq, dk, dv
