# trap: none
# The mirror image of sum-not-rescaled: l is corrected, the accumulator is not.
import math

import torch


def tiled_attention(q, k, v, block):
    B, H, T, dh = q.shape
    qf = q.float() / math.sqrt(dh)
    m = torch.full((B, H, T, 1), float("-inf"), device=q.device)
    l = torch.zeros(B, H, T, 1, device=q.device)
    acc = torch.zeros(B, H, T, dh, device=q.device)
    for j in range(0, k.shape[2], block):
        s = qf @ k[:, :, j:j + block].float().transpose(-2, -1)
        m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
        p = torch.exp(s - m_new)
        l = l * torch.exp(m - m_new) + p.sum(dim=-1, keepdim=True)
        acc = acc + p @ v[:, :, j:j + block].float()
        m = m_new
    return (acc / l).to(q.dtype)
