# trap: exponent-i-over-dh
# One frequency per pair, but the exponent counts pairs, not dimensions: i / dh instead of 2i / dh.
import torch


def apply_rope(x, pos, base=10000.0):
    dh = x.shape[-1]
    half = dh // 2
    inv_freq = base ** (-torch.arange(half, device=x.device).float() / dh)
    theta = pos.float()[:, None, :, None] * inv_freq
    cos, sin = theta.cos().to(x.dtype), theta.sin().to(x.dtype)
    x1, x2 = x[..., :half], x[..., half:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)
