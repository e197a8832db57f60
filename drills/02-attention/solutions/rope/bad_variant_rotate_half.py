# trap: half-split
# variant: pairing=interleaved
# Hugging Face's rotate_half from memory, for a checkpoint in Meta's interleaved layout.
import torch


def apply_rope(x, pos, base=10000.0):
    dh = x.shape[-1]
    inv_freq = 1.0 / (base ** (torch.arange(0, dh, 2, device=x.device).float() / dh))
    freqs = pos.float()[..., None] * inv_freq
    emb = torch.cat([freqs, freqs], dim=-1)[:, None]
    x1, x2 = x[..., : dh // 2], x[..., dh // 2:]
    return (x * emb.cos() + torch.cat([-x2, x1], dim=-1) * emb.sin()).to(x.dtype)
