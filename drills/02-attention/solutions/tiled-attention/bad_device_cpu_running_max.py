# device: the running statistics made with torch.full / torch.zeros on the CPU (no device=)
import math

import torch


def tiled_attention(q, k, v, block):
    B, H, T, dh = q.shape
    qf = q.float() / math.sqrt(dh)
    m = torch.full((B, H, T, 1), float("-inf"))
    l = torch.zeros(B, H, T, 1)
    acc = torch.zeros(B, H, T, dh)
    for j in range(0, k.shape[2], block):
        s = qf @ k[:, :, j:j + block].float().transpose(-2, -1)
        m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
        p = torch.exp(s - m_new)
        corr = torch.exp(m - m_new)
        l = l * corr + p.sum(dim=-1, keepdim=True)
        acc = acc * corr + p @ v[:, :, j:j + block].float()
        m = m_new
    return (acc / l).to(q.dtype)
