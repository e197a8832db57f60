# The same loop kept in the inputs' dtype (fp16 stays fp16): the running max keeps every exp <= 1.
import math

import torch


def tiled_attention(q, k, v, block):
    B, H, T, dh = q.shape
    S = k.shape[-2]
    m = q.new_full((B, H, T, 1), float("-inf"))
    l = q.new_zeros(B, H, T, 1)
    o = q.new_zeros(B, H, T, dh)
    for start in range(0, S, block):
        stop = min(start + block, S)
        s = q @ k[..., start:stop, :].transpose(-1, -2) / math.sqrt(dh)
        m_new = torch.max(m, s.max(dim=-1, keepdim=True).values)
        p = torch.exp(s - m_new)
        r = torch.exp(m - m_new)
        l = r * l + p.sum(-1, keepdim=True)
        o = r * o + p @ v[..., start:stop, :]
        m = m_new
    return o / l
