# Angles in float64 through einsum, the rotation done in float32 and cast back.
import math

import torch


def apply_rope(x, pos, base=10000.0):
    dh = x.shape[-1]
    i = torch.arange(dh // 2, device=x.device, dtype=torch.float64)
    inv_freq = torch.exp(-(2 * i / dh) * math.log(base))
    theta = torch.einsum("bt,f->btf", pos.double(), inv_freq)[:, None]  # (B, 1, T, dh/2)
    c, s = theta.cos().float(), theta.sin().float()
    xf = x.float()
    x1, x2 = xf.chunk(2, dim=-1)
    out = torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], dim=-1)
    return out.to(x.dtype)
