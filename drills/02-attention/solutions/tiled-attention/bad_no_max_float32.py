# trap: no-running-max
# No max at all, but in float32: right in fp16 cases, inf / inf once a score passes 88.7.
import math

import torch


def tiled_attention(q, k, v, block):
    num, den = 0.0, 0.0
    for kb, vb in zip(k.split(block, dim=2), v.split(block, dim=2)):
        e = torch.exp(q.float() @ kb.float().transpose(-2, -1) / math.sqrt(q.shape[-1]))
        num = num + e @ vb.float()
        den = den + e.sum(-1, keepdim=True)
    return (num / den).to(q.dtype)
