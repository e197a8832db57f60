# trap: none
# cos and sin built as (B, T, dh) and multiplied into (B, H, T, dh) without a head axis:
# B meets H when broadcasting, an error unless B == 1.
import torch


def apply_rope(x, pos, base=10000.0):
    dh = x.shape[-1]
    inv_freq = 1.0 / (base ** (torch.arange(0, dh, 2, device=x.device).float() / dh))
    freqs = pos.float()[..., None] * inv_freq  # (B, T, dh/2)
    emb = torch.cat([freqs, freqs], dim=-1)
    cos, sin = emb.cos().to(x.dtype), emb.sin().to(x.dtype)
    x1, x2 = x[..., : dh // 2], x[..., dh // 2:]
    return x * cos + torch.cat([-x2, x1], dim=-1) * sin
