# trap: none
# The sign of the sine term on the wrong half: rotates by -theta (the inverse rotation).
import torch


def apply_rope(x, pos, base=10000.0):
    dh = x.shape[-1]
    inv_freq = 1.0 / (base ** (torch.arange(0, dh, 2, device=x.device).float() / dh))
    theta = pos.float()[:, None, :, None] * inv_freq
    cos, sin = theta.cos().to(x.dtype), theta.sin().to(x.dtype)
    x1, x2 = x[..., : dh // 2], x[..., dh // 2:]
    return torch.cat([x1 * cos + x2 * sin, x2 * cos - x1 * sin], dim=-1)
