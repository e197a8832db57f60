# The FlashAttention-style loop: running max, running sum and accumulator in float32.
import math

import torch


def tiled_attention(q, k, v, block):
    B, H, T, dh = q.shape
    S = k.shape[2]
    qf = q.float() / math.sqrt(dh)
    m = torch.full((B, H, T, 1), float("-inf"), device=q.device)
    l = torch.zeros(B, H, T, 1, device=q.device)
    acc = torch.zeros(B, H, T, dh, device=q.device)
    for j in range(0, S, block):
        kb = k[:, :, j:j + block].float()
        vb = v[:, :, j:j + block].float()
        s = qf @ kb.transpose(-2, -1)
        m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
        p = torch.exp(s - m_new)
        corr = torch.exp(m - m_new)
        l = l * corr + p.sum(dim=-1, keepdim=True)
        acc = acc * corr + p @ vb
        m = m_new
    return (acc / l).to(q.dtype)
