# trap: ragged-block-dropped
# n_blocks = S // block: the keys after the last whole block are never read.
import math

import torch


def tiled_attention(q, k, v, block):
    B, H, T, dh = q.shape
    n_blocks = k.shape[2] // block
    qf = q.float() / math.sqrt(dh)
    m = torch.full((B, H, T, 1), float("-inf"), device=q.device)
    l = torch.zeros(B, H, T, 1, device=q.device)
    acc = torch.zeros(B, H, T, dh, device=q.device)
    for i in range(n_blocks):
        kb = k[:, :, i * block:(i + 1) * block].float()
        vb = v[:, :, i * block:(i + 1) * block].float()
        s = qf @ kb.transpose(-2, -1)
        m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
        p = torch.exp(s - m_new)
        corr = torch.exp(m - m_new)
        l = l * corr + p.sum(dim=-1, keepdim=True)
        acc = acc * corr + p @ vb
        m = m_new
    return (acc / l).to(q.dtype)
