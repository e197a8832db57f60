# trap: masked-block-nan
# variant: causal=bottom-right
# The mask applied with -inf and the loop left as it was: a query with no key keeps m = -inf.
import math

import torch


def tiled_attention(q, k, v, block):
    B, H, T, dh = q.shape
    S = k.shape[-2]
    qf = q.float() / math.sqrt(dh)
    m = torch.full((B, H, T, 1), float("-inf"), device=q.device)
    l = torch.zeros(B, H, T, 1, device=q.device)
    acc = torch.zeros(B, H, T, dh, device=q.device)
    i = torch.arange(T, device=q.device)[:, None]
    for j in range(0, S, block):
        jj = torch.arange(j, min(j + block, S), device=q.device)[None, :]
        s = qf @ k[:, :, j:j + block].float().transpose(-2, -1)
        s = s.masked_fill(jj > i + S - T, float("-inf"))
        m_new = torch.maximum(m, s.amax(-1, keepdim=True))
        p = torch.exp(s - m_new)
        corr = torch.exp(m - m_new)
        l = l * corr + p.sum(-1, keepdim=True)
        acc = acc * corr + p @ v[:, :, j:j + block].float()
        m = m_new
    return (acc / l).to(q.dtype)
