# trap: angles-in-x-dtype
# Everything in x's dtype, "to save a cast": the angles themselves are then fp16.
import torch


def apply_rope(x, pos, base=10000.0):
    dh = x.shape[-1]
    inv_freq = 1.0 / (base ** (torch.arange(0, dh, 2, device=x.device).to(x.dtype) / dh))
    theta = pos.to(x.dtype)[:, None, :, None] * inv_freq
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat([x1 * theta.cos() - x2 * theta.sin(), x2 * theta.cos() + x1 * theta.sin()], dim=-1)
