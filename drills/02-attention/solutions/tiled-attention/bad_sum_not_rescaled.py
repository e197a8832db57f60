# trap: sum-not-rescaled
# The accumulator is corrected when the max rises; the running sum is not.
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
        acc = acc * torch.exp(m - m_new) + p @ v[:, :, j:j + block].float()
        l = l + p.sum(dim=-1, keepdim=True)
        m = m_new
    return (acc / l).to(q.dtype)
