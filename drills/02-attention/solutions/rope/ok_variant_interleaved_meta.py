# variant: pairing=interleaved
# Meta's Llama reference code: neighbouring pairs as complex numbers (view_as_complex), times freqs_cis.
import torch


def apply_rope(x, pos, base=10000.0):
    B, H, T, dh = x.shape
    freqs = 1.0 / (base ** (torch.arange(0, dh, 2, device=x.device)[: dh // 2].float() / dh))
    angles = pos.float()[..., None] * freqs  # (B, T, dh/2)
    freqs_cis = torch.polar(torch.ones_like(angles), angles)[:, None]  # (B, 1, T, dh/2)
    x_ = torch.view_as_complex(x.float().reshape(B, H, T, dh // 2, 2))
    out = torch.view_as_real(x_ * freqs_cis).flatten(3)
    return out.type_as(x)
