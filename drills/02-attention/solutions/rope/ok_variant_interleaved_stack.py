# variant: pairing=interleaved
# GPT-J style by hand: even and odd dimensions, rotated and woven back together.
import torch


def apply_rope(x, pos, base=10000.0):
    dh = x.shape[-1]
    inv = 1.0 / base ** (torch.arange(0, dh, 2, device=x.device, dtype=torch.float32) / dh)
    th = (pos.to(torch.float32)[:, None, :, None] * inv)
    cos, sin = th.cos().to(x.dtype), th.sin().to(x.dtype)
    ev, od = x[..., ::2], x[..., 1::2]
    out = torch.empty_like(x)
    out[..., ::2] = ev * cos - od * sin
    out[..., 1::2] = od * cos + ev * sin
    return out
