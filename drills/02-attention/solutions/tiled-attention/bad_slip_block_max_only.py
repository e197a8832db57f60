# trap: none
# Each block's exps taken against its own max and simply added up: no correction between blocks.
import math

import torch


def tiled_attention(q, k, v, block):
    B, H, T, dh = q.shape
    qf = q.float() / math.sqrt(dh)
    l = torch.zeros(B, H, T, 1, device=q.device)
    acc = torch.zeros(B, H, T, dh, device=q.device)
    for j in range(0, k.shape[2], block):
        s = qf @ k[:, :, j:j + block].float().transpose(-2, -1)
        p = torch.exp(s - s.amax(dim=-1, keepdim=True))
        l = l + p.sum(dim=-1, keepdim=True)
        acc = acc + p @ v[:, :, j:j + block].float()
    return (acc / l).to(q.dtype)
