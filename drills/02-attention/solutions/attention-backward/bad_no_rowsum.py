# trap: no-rowsum-term
# The softmax treated as elementwise: dS = P * dP.
import math

import torch


def attention_backward(q, k, v, dout):
    scale = 1 / math.sqrt(q.shape[-1])
    p = torch.softmax(q @ k.transpose(-2, -1) * scale, dim=-1)
    dv = p.transpose(-2, -1) @ dout
    ds = p * (dout @ v.transpose(-2, -1))
    return ds @ k * scale, ds.transpose(-2, -1) @ q * scale, dv
