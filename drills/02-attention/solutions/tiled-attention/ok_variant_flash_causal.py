# variant: causal=bottom-right
# flash-attn's causal tiles: the diagonal shifted by S - T, rows with no key at all left at zero.
import math

import torch


def tiled_attention(q, k, v, block):
    B, H, T, dh = q.shape
    S = k.shape[-2]
    qf = q.float() / math.sqrt(dh)
    m = torch.full((B, H, T, 1), float("-inf"), device=q.device)
    l = torch.zeros(B, H, T, 1, device=q.device)
    acc = torch.zeros(B, H, T, dh, device=q.device)
    rows = torch.arange(T, device=q.device)[:, None] + (S - T)
    for j in range(0, S, block):
        cols = torch.arange(j, min(j + block, S), device=q.device)[None, :]
        s = qf @ k[:, :, j:j + block].float().transpose(-2, -1)
        s = s.masked_fill(cols > rows, float("-inf"))
        m_new = torch.maximum(m, s.amax(-1, keepdim=True))
        safe = torch.where(torch.isinf(m_new), torch.zeros_like(m_new), m_new)
        p = torch.exp(s - safe)
        corr = torch.exp(m - safe)
        l = l * corr + p.sum(-1, keepdim=True)
        acc = acc * corr + p @ v[:, :, j:j + block].float()
        m = m_new
    return (acc / l.clamp_min(1e-30)).to(q.dtype)
